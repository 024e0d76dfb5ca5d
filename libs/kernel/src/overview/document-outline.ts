import { trimEndWhile } from '../text/trim';
import { cutCodePoints, PY_WS, pyLstrip, pySplitLines, pyStrip } from '../text/py-text';

const HEADING_LIMIT = 24;
const PARAGRAPH_CHARS = 400;
// Trailing blanks are trimmed in code: a lazy title followed by `[ \t]*` is quadratic in a long blank run.
const HEADING = /(?<=^|\n)(#{1,3})[ \t]+([^\n]+)/g;
const BLANK_LINE = new RegExp(`\\n[${PY_WS}]*\\n`);

/**
 * Generic document overview (docs/contract.md#tier-texts item 4): indented heading tree + first paragraph (≤400 chars).
 */
export function documentOutline(content: string): string {
  if (!content) return '';
  const headings: string[] = [];
  for (const match of content.matchAll(HEADING)) {
    const level = match[1]!.length;
    headings.push(`${'  '.repeat(level - 1)}${'#'.repeat(level)} ${headingTitle(match[2]!)}`);
    if (headings.length >= HEADING_LIMIT) break;
  }
  let paragraph = '';
  for (const block of content.split(BLANK_LINE)) {
    const text = pyStrip(
      pySplitLines(pyStrip(block))
        .filter((line) => !pyLstrip(line).startsWith('#'))
        .join('\n'),
    );
    if (text) {
      paragraph = cutCodePoints(text, PARAGRAPH_CHARS);
      break;
    }
  }
  return pyStrip([headings.join('\n'), paragraph].filter((part) => part).join('\n\n'));
}

/** The title without trailing blanks; a title of blanks only keeps its last one, as the reference does. */
function headingTitle(raw: string): string {
  const title = trimEndWhile(raw, (ch) => ch === ' ' || ch === '\t');
  return title || raw.slice(-1);
}

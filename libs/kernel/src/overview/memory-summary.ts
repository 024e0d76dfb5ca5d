import { collapseWhitespace, PY_WS, pyStrip } from '../text/py-text';

const WS = `[${PY_WS}]`;
// `# Summary` (levels 1-3, any case) up to the next level 1-3 heading or the end.
const SECTION = /(?<=^|\n)#{1,3}[ \t]*summary[ \t]*\n([\s\S]*?)(?=(?<=\n)#{1,3}[ \t]|$)/iu;
// Legacy layout: `Summary: …` up to a dated `ChatLog:` line, a bare `ChatLog:`, the trailer, or the end.
const INLINE_HEAD = new RegExp(`^${WS}*summary:${WS}*`, 'iu');
// What may follow a line break (and the whitespace after it) to end the legacy summary.
const INLINE_END = new RegExp(
  `(?:\\p{Nd}{4}-\\p{Nd}{2}-\\p{Nd}{2}(?:${WS}*\\([^)]{1,200}\\))?${WS}*chatlog:|chatlog:|<!--${WS}*memory_fields)`,
  'iuy',
);
const IS_WS = new RegExp(`^${WS}$`);

/**
 * The memory overview (docs/contract.md#tier-texts item 3): the `# Summary` section, else the legacy inline form, else
 * "".
 */
export function extractSummary(content: string): string {
  if (!content) return '';
  const section = SECTION.exec(content);
  if (section) return pyStrip(section[1]!);
  const head = INLINE_HEAD.exec(content);
  return head ? collapseWhitespace(content.slice(head[0].length, inlineEnd(content, head[0].length))) : '';
}

/**
 * Where the legacy summary starting at `from` ends: at the first line break followed (after any
 * whitespace) by an end marker, else before a final line break, else at the end. A scan rather than a
 * lazy regex, which would rescan each run of blank lines once per line break in it (quadratic).
 */
function inlineEnd(content: string, from: number): number {
  let at = content.indexOf('\n', from);
  while (at >= 0) {
    let next = at + 1;
    while (next < content.length && IS_WS.test(content[next]!)) next += 1;
    INLINE_END.lastIndex = next;
    if (INLINE_END.test(content)) return at;
    // Every line break inside this whitespace run leads to the same `next`, so none of them can end it.
    at = content.indexOf('\n', next);
  }
  return content.endsWith('\n') && content.length - 1 >= from ? content.length - 1 : content.length;
}

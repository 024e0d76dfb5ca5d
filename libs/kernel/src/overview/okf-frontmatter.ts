import { trimEndWhile } from '../text/trim';

// After each line end (CRLF, LF or a lone CR): a split, linear, where a line pattern could rescan.
const LINE_END = /(?<=\n|\r(?!\n))/;
const isEol = (ch: string): boolean => ch === '\n' || ch === '\r';

function splitKeepEnds(text: string): string[] {
  return text.split(LINE_END).filter((line) => line !== '');
}

function withoutEol(line: string): string {
  return trimEndWhile(line, isEol);
}

/**
 * Body of an OKF sidecar (docs/contract.md#tiers-and-sidecars): a leading `---` … `---` frontmatter block is removed
 * and the
 * canonical trailing newline dropped. Lenient by design (docs/contract.md#tiers-and-sidecars): the frontmatter is not
 * parsed,
 * so a missing `directory` key or bad YAML still strips cleanly, and an unclosed block leaves
 * the text as it is. Never throws.
 */
export function stripOkfFrontmatter(text: string): string {
  const lines = splitKeepEnds(text);
  if (lines.length === 0 || withoutEol(lines[0]!) !== '---') return text;
  const closing = lines.findIndex((line, index) => index > 0 && withoutEol(line) === '---');
  if (closing < 0) return text;
  let body = lines.slice(closing + 1).join('');
  if (body.startsWith('\r\n')) body = body.slice(2);
  else if (body.startsWith('\n')) body = body.slice(1);
  return trimEndWhile(body, isEol);
}

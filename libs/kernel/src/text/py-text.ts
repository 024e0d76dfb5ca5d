// The contract was observed on a Python server, and its byte-level outputs (trimming, line
// splitting, `\s`, slicing by code point) follow Python's str semantics, which differ from JS.

/** Characters Python's `str.isspace()` and `re`'s `\s` treat as whitespace, as a regex class body. */
export const PY_WS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

import { trimEndWhile } from './trim';

const LEADING_WS = new RegExp(`^[${PY_WS}]+`);
const WS_CHAR = new RegExp(`^[${PY_WS}]$`);
const WS_RUNS = new RegExp(`[${PY_WS}]+`, 'g');
// eslint-disable-next-line no-control-regex -- Python's str.splitlines() boundaries include these controls.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python `s.strip()`. */
export function pyStrip(text: string): string {
  return pyRstrip(text).replace(LEADING_WS, '');
}

/** Python `s.lstrip()`. */
export function pyLstrip(text: string): string {
  return text.replace(LEADING_WS, '');
}

/** Python `s.rstrip()`. */
export function pyRstrip(text: string): string {
  return trimEndWhile(text, (ch) => WS_CHAR.test(ch));
}

/** Python `s.splitlines()`: every Unicode line boundary, no trailing empty line. */
export function pySplitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(LINE_BREAK);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python `re.sub(r"\s+", " ", s).strip()`. */
export function collapseWhitespace(text: string): string {
  return pyStrip(text.replace(WS_RUNS, ' '));
}

/** Python `s[:n]`: the first `n` code points (never splits a surrogate pair). */
export function cutCodePoints(text: string, n: number): string {
  if (text.length <= n) return text;
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === n) break;
    units += ch.length;
    points += 1;
  }
  return text.slice(0, units);
}

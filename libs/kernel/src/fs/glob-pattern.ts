import { invalidArgument } from '../kernel.error';

// Glob patterns (docs/fs-and-mcp.md, "Grep and glob") become anchored regular expressions in the
// safe subset PostgreSQL runs without backtracking: `*` is `[^/]*`, `**/` is `(.*/)?`, `?` is `[^/]`,
// brackets stay classes. Every other ASCII punctuation character is escaped, so a pattern can only
// ever mean a literal path shape; one pass, linear in the pattern's length.

const ASCII_PUNCT = /^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/;

/** Regex (PostgreSQL syntax) matching a path relative to the glob's base; throws INVALID_ARGUMENT. */
export function globToRegex(pattern: string, field: string, maxLength: number): string {
  if (pattern.trim() === '') throw invalidArgument(`${field} must not be empty`, { field });
  if (pattern.length > maxLength) {
    throw invalidArgument(`${field} is longer than ${maxLength} characters`, { field, limit: maxLength });
  }
  let out = '^';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '*') {
      const double = pattern[i + 1] === '*';
      const atSegmentStart = i === 0 || pattern[i - 1] === '/';
      if (double && atSegmentStart && pattern[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 3;
      } else if (double && atSegmentStart && i + 2 === pattern.length) {
        out += '.*';
        i += 2;
      } else {
        // A lone `*`, or `**` inside a segment (treated as `*`); runs collapse to one `[^/]*`.
        while (pattern[i] === '*') i += 1;
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
      i += 1;
    } else if (c === '[') {
      const [text, width] = bracket(pattern, i, field);
      out += text;
      i += width;
    } else {
      out += ASCII_PUNCT.test(c) ? `\\${c}` : c;
      i += 1;
    }
  }
  return `${out}$`;
}

/** `[abc]`, `[!abc]`/`[^abc]`, ranges (in order, else INVALID_ARGUMENT); a negated class never matches `/`. */
function bracket(pattern: string, start: number, field: string): [string, number] {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true;
    i += 1;
  }
  let body = '';
  let prev: string | null = null;
  // A `-` right after a range is a literal: PostgreSQL refuses `a-c-e` ("invalid character range").
  let afterRange = false;
  while (i < pattern.length && (pattern[i] !== ']' || prev === null)) {
    const c = pattern[i]!;
    const next = pattern[i + 1];
    if (c === '-' && prev !== null && !afterRange && next !== undefined && next !== ']') {
      if (next < prev) throw invalidArgument(`${field} has an out-of-order range ${prev}-${next}`, { field });
      body += `-${escapeInClass(next)}`;
      prev = next;
      afterRange = true;
      i += 2;
      continue;
    }
    body += escapeInClass(c);
    prev = c;
    afterRange = false;
    i += 1;
  }
  if (i >= pattern.length) throw invalidArgument(`${field} has an unclosed [`, { field });
  return [negate ? `[^/${body}]` : `[${body}]`, i + 1 - start];
}

function escapeInClass(c: string): string {
  return c === '\\' || c === '[' || c === ']' || c === '^' || c === '-' ? `\\${c}` : c;
}

import { invalidArgument, KernelError } from '../kernel.error';

// The regular-expression subset a `regex` filter accepts (docs/limits-and-security.md#regex-filters):
// constructs every common engine reads alike and that PostgreSQL runs without backtracking, so one
// pattern can never stall a statement. Checked in one pass; the result is the pattern in PostgreSQL's
// spelling (`\b` → `\y`, `\xHH` → `\u00HH`).

/** Largest `{n,m}` bound. */
export const MAX_REGEX_REPEAT = 100;

const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const CONTROL_ESCAPES = new Set(['t', 'n', 'r', 'f', 'v']);
const HEX = /^[0-9a-fA-F]$/;
const PUNCT = /^[^\p{L}\p{N}\s]$/u;

interface Group {
  /** A quantifier appears somewhere inside (at any depth). */
  repeats: boolean;
}

type Atom = { kind: 'none' } | { kind: 'atom'; quantified: boolean; lazy: boolean; innerRepeats: boolean };

/** Validates a caller's `regex` filter pattern and returns it in PostgreSQL syntax; throws INVALID_ARGUMENT. */
export function toSafeRegex(pattern: string, field: string, maxLength: number): string {
  const fail = (why: string): KernelError =>
    invalidArgument(`${field} ${why}; see docs/limits-and-security.md#regex-filters`, { field });
  if (pattern.length > maxLength) {
    throw invalidArgument(`${field} is longer than ${maxLength} characters`, { field, limit: maxLength });
  }
  const groups: Group[] = [];
  // `as`: assignments inside `atom` are invisible to narrowing, which would otherwise pin `last` to 'none'.
  let last = { kind: 'none' } as Atom;
  let out = '';
  let i = 0;
  const atom = (text: string, innerRepeats = false): void => {
    out += text;
    last = { kind: 'atom', quantified: false, lazy: false, innerRepeats };
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const [text, width] = escape(pattern, i, false, fail);
      // A word boundary matches no character: PostgreSQL refuses `\y*` ("quantifier operand invalid").
      if (text === '\\y' || text === '\\Y') {
        out += text;
        last = { kind: 'none' };
      } else atom(text);
      i += width;
    } else if (c === '[') {
      const [text, width] = bracket(pattern, i, fail);
      atom(text);
      i += width;
    } else if (c === '(') {
      if (pattern[i + 1] === '?') {
        if (pattern[i + 2] !== ':') {
          throw fail('uses a look-around, a named group or an inline flag, which are not supported');
        }
        out += '(?:';
        i += 3;
      } else {
        out += '(';
        i += 1;
      }
      groups.push({ repeats: false });
      last = { kind: 'none' };
    } else if (c === ')') {
      const group = groups.pop();
      if (!group) throw fail('has an unmatched )');
      if (groups.length) groups[groups.length - 1]!.repeats ||= group.repeats;
      atom(')', group.repeats);
      i += 1;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const [text, width] = c === '{' ? bound(pattern, i, fail) : [c, 1];
      if (last.kind === 'none') throw fail(`has nothing to repeat before ${text}`);
      if (last.quantified) {
        // `x*?`-style lazy forms are fine; `x**` or `x{2}{3}` are nested quantifiers.
        if (text !== '?' || last.lazy) throw fail('repeats a repetition (nested quantifiers are not supported)');
        out += '?';
        last = { ...last, lazy: true };
        i += 1;
        continue;
      }
      if (last.innerRepeats) throw fail('repeats a group that itself repeats (nested quantifiers are not supported)');
      out += text;
      last = { ...last, quantified: true };
      if (groups.length) groups[groups.length - 1]!.repeats = true;
      i += width;
    } else if (c === '|' || c === '^' || c === '$') {
      out += c;
      last = { kind: 'none' };
      i += 1;
    } else if (c === ']' || c === '}') {
      throw fail(`has an unescaped ${c}; write \\${c}`);
    } else {
      atom(c);
      i += 1;
    }
  }
  if (groups.length) throw fail('has an unclosed (');
  return out;
}

type Fail = (why: string) => KernelError;

/** One escape at `i` (outside or inside brackets): its PostgreSQL text and its width in the pattern. */
function escape(pattern: string, i: number, inBracket: boolean, fail: Fail): [string, number] {
  const e = pattern[i + 1];
  if (e === undefined) throw fail('ends with a lone backslash');
  if (/[1-9]/.test(e) || e === 'k') throw fail('uses a back-reference, which is not supported');
  if (CLASS_ESCAPES.has(e)) {
    if (inBracket && (e === 'D' || e === 'W' || e === 'S')) {
      throw fail(`uses \\${e} inside brackets, which is not supported`);
    }
    return [`\\${e}`, 2];
  }
  if (CONTROL_ESCAPES.has(e)) return [`\\${e}`, 2];
  if (!inBracket && (e === 'b' || e === 'B')) return [e === 'b' ? '\\y' : '\\Y', 2];
  if (e === 'x' && HEX.test(pattern[i + 2] ?? '') && HEX.test(pattern[i + 3] ?? '')) {
    return [`\\u00${pattern.slice(i + 2, i + 4)}`, 4];
  }
  if (e === 'u' && [2, 3, 4, 5].every((k) => HEX.test(pattern[i + k] ?? ''))) return [pattern.slice(i, i + 6), 6];
  if (PUNCT.test(e)) return [`\\${e}`, 2];
  throw fail(`uses the escape \\${e}, which is not supported`);
}

/** One member of a bracket expression: its PostgreSQL text, and its code point unless it is a class (`\\d`). */
interface Member {
  text: string;
  source: string;
  point: number | null;
}

const CONTROL_POINTS: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, v: 11 };

/**
 * A bracket expression `[...]` at `i`; ranges and the escapes above, no POSIX `[:class:]` forms. A range
 * must run from a character to a character not below it, and cannot be followed by another `-`:
 * PostgreSQL refuses `[z-a]`, `[\\d-z]` and `[a-a-z]` ("invalid character range") where JavaScript reads
 * the last two as literals.
 */
function bracket(pattern: string, i: number, fail: Fail): [string, number] {
  let j = i + 1;
  let out = '[';
  if (pattern[j] === '^') {
    out += '^';
    j += 1;
  }
  // `[]…]` and `[^]` mean different things in different engines.
  if (pattern[j] === ']') throw fail('has a bracket expression starting with ]; write \\]');
  const next = (): Member => {
    const c = pattern[j]!;
    if (c === '\\') {
      const [text, width] = escape(pattern, j, true, fail);
      const source = pattern.slice(j, j + width);
      j += width;
      return { text, source, point: escapedPoint(source) };
    }
    if (c === '[' && /[:=.]/.test(pattern[j + 1] ?? '')) {
      throw fail('uses a POSIX class such as [:alpha:], which is not supported');
    }
    const point = pattern.codePointAt(j)!;
    const text = String.fromCodePoint(point);
    j += text.length;
    return { text, source: text, point };
  };
  const isRange = () => pattern[j] === '-' && j + 1 < pattern.length && pattern[j + 1] !== ']';
  while (j < pattern.length && pattern[j] !== ']') {
    const from = next();
    out += from.text;
    if (!isRange()) continue;
    j += 1;
    const to = next();
    if (from.point === null || to.point === null) {
      throw fail(`uses a class escape as a range end (${from.source}-${to.source}); write the - as \\-`);
    }
    if (from.point > to.point) throw fail(`has the reversed range ${from.source}-${to.source}`);
    if (isRange()) throw fail(`has a - right after the range ${from.source}-${to.source}; write \\-`);
    out += `-${to.text}`;
  }
  if (j >= pattern.length) throw fail('has an unclosed [');
  return [`${out}]`, j - i + 1];
}

/** The code point an escape inside brackets stands for (`escape` accepted it), or null for a class. */
function escapedPoint(source: string): number | null {
  const e = source[1]!;
  if (CLASS_ESCAPES.has(e)) return null;
  if (e in CONTROL_POINTS) return CONTROL_POINTS[e]!;
  if (e === 'x' || e === 'u') return parseInt(source.slice(2), 16);
  return e.codePointAt(0)!;
}

/** A `{n}`, `{n,}` or `{n,m}` bound at `i`, each number at most MAX_REGEX_REPEAT. */
function bound(pattern: string, i: number, fail: Fail): [string, number] {
  const m = /^\{(\d{1,6})(,(\d{1,6})?)?\}/.exec(pattern.slice(i, i + 16));
  if (!m) throw fail('has a { that is not a repetition bound; write \\{ for the character');
  const min = Number(m[1]);
  const max = m[3] === undefined ? (m[2] ? null : min) : Number(m[3]);
  if (min > MAX_REGEX_REPEAT || (max !== null && max > MAX_REGEX_REPEAT)) {
    throw fail(`repeats more than ${MAX_REGEX_REPEAT} times`);
  }
  if (max !== null && max < min) throw fail('has a repetition bound {n,m} with m < n');
  return [m[0], m[0].length];
}

import { invalidArgument, KernelError } from '../kernel.error';
import { isSessionId } from '../session/session-id';

const MIN_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The field reads an import line's checks are made of (docs/limits-and-security.md, "Importing an
 * account"): every refusal names the line and the field, `line 12: content`.
 */

/** A user id as the account routes accept it. */
export const USER_ID = /^(?!\.{1,2}$)(?!.*@.*@)[a-zA-Z0-9_.@-]{1,128}$/;

/** A surrogate code unit that is not half of a pair (with the u flag a pair is one code point). */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** A refusal naming the line (1-based) and, when there is one, its field: `line 12: content`. */
export function importProblem(line: number, message: string, field?: string): KernelError {
  return invalidArgument(`line ${line}: ${message}`, {
    field: field ? `line ${line}: ${field}` : `line ${line}`,
    line,
  });
}

/**
 * What the store cannot hold, anywhere in the line (nested message parts and archives included): NUL
 * characters and unpaired UTF-16 surrogates, which PostgreSQL text and jsonb refuse; and nesting past
 * `maxDepth`. Iterative, so a deep line cannot exhaust the stack.
 */
export function checkText(value: unknown, line: number, maxDepth: number): void {
  const todo: [unknown, number][] = [[value, 1]];
  while (todo.length > 0) {
    const [v, depth] = todo.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000'))
        throw importProblem(line, 'holds a NUL (\\u0000) character, which the store cannot keep');
      if (UNPAIRED_SURROGATE.test(v)) throw importProblem(line, 'holds an unpaired UTF-16 surrogate');
    } else if (typeof v === 'object' && v !== null) {
      if (depth > maxDepth) throw importProblem(line, `nests deeper than ${maxDepth} levels`);
      for (const [k, child] of Object.entries(v)) todo.push([k, depth], [child, depth + 1]);
    }
  }
}

/** Typed reads of one line's (or one nested object's) fields; a refusal names the field. */
export class Fields {
  private readonly o: Record<string, unknown>;

  constructor(
    value: unknown,
    private readonly line: number,
    private readonly prefix = '',
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw importProblem(
        line,
        `${prefix || 'the line '}must be a JSON object`.trim(),
        prefix.replace(/\.$/, '') || undefined,
      );
    this.o = value as Record<string, unknown>;
  }

  has(k: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.o, k);
  }

  raw(k: string): unknown {
    return this.o[k];
  }

  private fail(k: string, what: string): never {
    throw importProblem(this.line, `${this.prefix}${k} ${what}`, `${this.prefix}${k}`);
  }

  string(k: string): string {
    const v = this.o[k];
    if (typeof v !== 'string') this.fail(k, 'must be a string');
    return v;
  }

  /** A string of at most `maxChars` characters. */
  stringUpTo(k: string, maxChars: number): string {
    const v = this.string(k);
    if (v.length > maxChars) this.fail(k, `must have at most ${maxChars} characters`);
    return v;
  }

  match(k: string, re: RegExp): string {
    const v = this.string(k);
    if (!re.test(v)) this.fail(k, `must match ${re.source}`);
    return v;
  }

  sessionId(): string {
    const v = this.string('session_id');
    if (!isSessionId(v)) this.fail('session_id', 'must match ^[a-zA-Z0-9_.@-]{1,128}$ and not be "." or ".."');
    return v;
  }

  oneOf<T extends string>(k: string, values: readonly T[]): T {
    const v = this.o[k];
    if (typeof v !== 'string' || !values.includes(v as T)) this.fail(k, `must be one of ${values.join(', ')}`);
    return v as T;
  }

  int(k: string, min: number, max = 2_147_483_647): number {
    const v = this.o[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
      this.fail(k, `must be an integer from ${min} to ${max}`);
    return v;
  }

  date(k: string): string {
    const v = this.string(k);
    const t = Date.parse(v);
    if (v.length > 40 || Number.isNaN(t)) this.fail(k, 'must be an ISO 8601 time');
    // Years 1 to 9999: JavaScript reads year 0 and six-digit years, which the store refuses (a 500).
    if (t < MIN_TIME || t > MAX_TIME) this.fail(k, 'must be a time in the years 1 to 9999');
    return new Date(t).toISOString();
  }

  /** An ISO time, or null (absent or null: a time that never was). */
  dateOrNull(k: string): string | null {
    return this.has(k) && this.o[k] !== null ? this.date(k) : null;
  }

  array(k: string, max: number): unknown[] {
    const v = this.o[k];
    if (!Array.isArray(v)) this.fail(k, 'must be an array');
    if (v.length > max) this.fail(k, `must hold at most ${max} items`);
    return v;
  }

  /** Message parts: objects, each naming its `type` (the session readers dispatch on it). */
  parts(k: string): unknown[] {
    const v = this.array(k, Number.MAX_SAFE_INTEGER);
    v.forEach((p, i) => {
      if (typeof p !== 'object' || p === null || Array.isArray(p) || typeof (p as { type?: unknown }).type !== 'string')
        this.fail(`${k}[${i}]`, 'must be an object with a string type');
    });
    return v;
  }

  strings(k: string, max: number, maxChars: number): string[] {
    const v = this.array(k, max);
    if (!v.every((s) => typeof s === 'string' && s.length <= maxChars))
      this.fail(k, `must hold strings of at most ${maxChars} characters`);
    return v as string[];
  }

  object(k: string): Record<string, unknown> {
    const v = this.o[k];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(k, 'must be an object');
    return v as Record<string, unknown>;
  }
}

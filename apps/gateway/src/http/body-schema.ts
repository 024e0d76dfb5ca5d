import { ValidationIssue } from './error-envelope';

/** A field rule: returns the coerced value, or an issue (without `loc`) when the input is invalid. */
export type Rule = (value: unknown) => { ok: true; value: unknown } | { ok: false; message: string; type: string };

const ok = (value: unknown) => ({ ok: true as const, value });
const bad = (message: string, type: string) => ({ ok: false as const, message, type });

/**
 * Lax coercions and messages as pydantic v2 gives them, so JSON bodies the reference accepts are
 * accepted here and bodies it rejects get the same `error.details.validation_errors` entries.
 */
export const rules = {
  str: (): Rule => (v) => (typeof v === 'string' ? ok(v) : bad('Input should be a valid string', 'string_type')),
  int:
    (min?: number, max?: number): Rule =>
    (v) => {
      let n: number;
      if (typeof v === 'number' && Number.isFinite(v)) {
        if (!Number.isInteger(v))
          return bad('Input should be a valid integer, got a number with a fractional part', 'int_from_float');
        n = v;
      } else if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) n = Number(v);
      else if (typeof v === 'string')
        return bad('Input should be a valid integer, unable to parse string as an integer', 'int_parsing');
      else return bad('Input should be a valid integer', 'int_type');
      if (min !== undefined && n < min)
        return bad(`Input should be greater than or equal to ${min}`, 'greater_than_equal');
      if (max !== undefined && n > max) return bad(`Input should be less than or equal to ${max}`, 'less_than_equal');
      return ok(n);
    },
  num: (): Rule => (v) => {
    if (typeof v === 'number' && Number.isFinite(v)) return ok(v);
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return ok(Number(v));
    if (typeof v === 'string')
      return bad('Input should be a valid number, unable to parse string as a number', 'float_parsing');
    return bad('Input should be a valid number', 'float_type');
  },
  bool: (): Rule => (v) => {
    if (typeof v === 'boolean') return ok(v);
    if (v === 0 || v === 1) return ok(v === 1);
    if (typeof v === 'string') {
      const s = v.toLowerCase();
      if (['true', 't', 'yes', 'y', 'on', '1'].includes(s)) return ok(true);
      if (['false', 'f', 'no', 'n', 'off', '0'].includes(s)) return ok(false);
    }
    return bad('Input should be a valid boolean, unable to interpret input', 'bool_parsing');
  },
  literal:
    (...values: string[]): Rule =>
    (v) =>
      typeof v === 'string' && values.includes(v)
        ? ok(v)
        : bad(`Input should be ${quoteList(values)}`, 'literal_error'),
  dict: (): Rule => (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? ok(v)
      : bad('Input should be a valid dictionary', 'dict_type'),
  list:
    (item: Rule, maxItems?: number): Rule =>
    (v) => {
      if (!Array.isArray(v)) return bad('Input should be a valid list', 'list_type');
      if (maxItems !== undefined && v.length > maxItems) {
        return bad(`List should have at most ${maxItems} items after validation, not ${v.length}`, 'too_long');
      }
      const out: unknown[] = [];
      for (const x of v) {
        const r = item(x);
        if (!r.ok) return r;
        out.push(r.value);
      }
      return ok(out);
    },
  /** The first rule that accepts the value wins; otherwise the last rule's message. */
  union:
    (...alternatives: Rule[]): Rule =>
    (v) => {
      let last: ReturnType<Rule> = bad('Input is invalid', 'value_error');
      for (const r of alternatives) {
        last = r(v);
        if (last.ok) return last;
      }
      return last;
    },
  any: (): Rule => (v) => ok(v),
};

function quoteList(values: string[]): string {
  const q = values.map((v) => `'${v}'`);
  return q.length <= 2 ? q.join(' or ') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
}

export interface FieldSpec {
  rule: Rule;
  /** `null` is accepted and kept. */
  nullable?: boolean;
  required?: boolean;
}

/** Validates a JSON body against a field map; unknown fields are rejected like pydantic's `extra=forbid`. */
export function validateBody(
  body: unknown,
  fields: Record<string, FieldSpec>,
): { value: Record<string, unknown>; issues: ValidationIssue[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return {
      value: {},
      issues: [
        {
          loc: ['body'],
          message: 'Input should be a valid dictionary or object to extract fields from',
          type: 'model_attributes_type',
        },
      ],
    };
  }
  const input = body as Record<string, unknown>;
  const value: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    if (!(name in input)) {
      if (spec.required) issues.push({ loc: ['body', name], message: 'Field required', type: 'missing' });
      continue;
    }
    const raw = input[name];
    if (raw === null && spec.nullable) {
      value[name] = null;
      continue;
    }
    const r = spec.rule(raw);
    if (r.ok) value[name] = r.value;
    else issues.push({ loc: ['body', name], message: r.message, type: r.type });
  }
  for (const name of Object.keys(input)) {
    if (!(name in fields))
      issues.push({ loc: ['body', name], message: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  }
  return { value, issues };
}

import { parseLaxBoolean } from '@app/kernel';

/** The JSON Schema a rule accepts: OpenAPI and the MCP tool schemas are written from it. */
export interface RuleSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  minimum?: number;
  maximum?: number;
  enum?: string[];
  pattern?: string;
  items?: RuleSchema;
  maxItems?: number;
  additionalProperties?: boolean | RuleSchema;
  oneOf?: RuleSchema[];
}

export type RuleResult = { ok: true; value: unknown } | { ok: false; message: string; type: string };

/** A field rule: the coerced value, or a pydantic-style message and type; `schema` says what it accepts. */
export interface Rule {
  (value: unknown): RuleResult;
  readonly schema: RuleSchema;
}

const ok = (value: unknown): RuleResult => ({ ok: true, value });
const bad = (message: string, type: string): RuleResult => ({ ok: false, message, type });
const rule = (schema: RuleSchema, check: (v: unknown) => RuleResult): Rule => Object.assign(check, { schema });

/**
 * Lax coercions and messages as pydantic v2 gives them, so JSON bodies the reference accepts are
 * accepted here and bodies it rejects get the same `error.details.validation_errors` entries.
 */
export const rules = {
  str: (): Rule =>
    rule({ type: 'string' }, (v) =>
      typeof v === 'string' ? ok(v) : bad('Input should be a valid string', 'string_type'),
    ),
  /** A string matching `pattern` (ECMAScript source; also the schema's `pattern`), pydantic's message when not. */
  pattern: (pattern: string): Rule => {
    const re = new RegExp(pattern);
    return rule({ type: 'string', pattern }, (v) => {
      if (typeof v !== 'string') return bad('Input should be a valid string', 'string_type');
      return re.test(v) ? ok(v) : bad(`String should match pattern '${pattern}'`, 'string_pattern_mismatch');
    });
  },
  int: (min?: number, max?: number): Rule =>
    rule({ type: 'integer', minimum: min, maximum: max }, (v) => {
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
    }),
  num: (): Rule =>
    rule({ type: 'number' }, (v) => {
      if (typeof v === 'number' && Number.isFinite(v)) return ok(v);
      if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return ok(Number(v));
      if (typeof v === 'string')
        return bad('Input should be a valid number, unable to parse string as a number', 'float_parsing');
      return bad('Input should be a valid number', 'float_type');
    }),
  bool: (): Rule =>
    rule({ type: 'boolean' }, (v) => {
      const flag = parseLaxBoolean(v);
      return flag === undefined
        ? bad('Input should be a valid boolean, unable to interpret input', 'bool_parsing')
        : ok(flag);
    }),
  literal: (...values: string[]): Rule =>
    rule({ type: 'string', enum: values }, (v) =>
      typeof v === 'string' && values.includes(v)
        ? ok(v)
        : bad(`Input should be ${quoteList(values)}`, 'literal_error'),
    ),
  dict: (values?: Rule): Rule =>
    rule({ type: 'object', additionalProperties: values ? values.schema : true }, (v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? ok(v)
        : bad('Input should be a valid dictionary', 'dict_type'),
    ),
  list: (item: Rule, maxItems?: number): Rule =>
    rule({ type: 'array', items: item.schema, maxItems }, (v) => {
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
    }),
  /** A field the contract names but this server cannot serve: only `null` (or absence) passes. */
  unsupported: (type: NonNullable<RuleSchema['type']>, message: string): Rule =>
    rule({ type }, () => bad(message, 'value_error')),
  /** The first alternative that accepts the value wins; otherwise `message`, or the last alternative's. */
  union: (alternatives: Rule[], message?: string): Rule =>
    rule({ oneOf: alternatives.map((r) => r.schema) }, (v) => {
      let last: RuleResult = bad('Input is invalid', 'value_error');
      for (const r of alternatives) {
        last = r(v);
        if (last.ok) return last;
      }
      return message ? bad(message, 'union_type') : last;
    }),
};

function quoteList(values: string[]): string {
  const q = values.map((v) => `'${v}'`);
  return q.length <= 2 ? q.join(' or ') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
}

/** One request field: its rule, whether `null` is accepted (and kept), whether it is required, its default. */
export interface FieldSpec {
  rule: Rule;
  nullable?: boolean;
  required?: boolean;
  /** The value the route uses when the field is absent (or null); documented in OpenAPI and the MCP schemas. */
  default?: unknown;
}

import { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy, ValidateIf } from 'class-validator';
import { FieldSpec, RuleSchema } from './body-schema';

/** The class-validator constraint name every body field reports under (decoded by validation-issues.ts). */
export const BODY_FIELD_CONSTRAINT = 'bodyField';
/** Separates the pydantic error type from its message inside the constraint message. */
export const ISSUE_TYPE_SEPARATOR = '\u0001';

const FIELDS = Symbol('bodyFields');
type FieldTable = Map<string, FieldSpec>;

/** What OpenAPI shows beyond the rule: a description, an example, or a richer schema for a union. */
export interface FieldDoc {
  description?: string;
  api?: ApiPropertyOptions;
}

/**
 * Declares one request-body field from its {@link FieldSpec}, the one schema of that field: the DTO transform
 * coerces it (lax, as pydantic does), class-validator checks it with the rule's message, OpenAPI documents the
 * rule's bounds and the default, and {@link fieldsOf} hands the same spec to the MCP tool schemas and the parsers.
 */
export function BodyField(spec: FieldSpec, doc: FieldDoc = {}): PropertyDecorator {
  return (target, key) => {
    const name = String(key);
    const owner = target.constructor as { [FIELDS]?: FieldTable };
    const table: FieldTable = Object.prototype.hasOwnProperty.call(owner, FIELDS) ? owner[FIELDS]! : new Map();
    table.set(name, spec);
    Object.defineProperty(owner, FIELDS, { value: table, configurable: true });

    const skip = (v: unknown) => v === undefined || (v === null && spec.nullable);
    Transform(({ value }) => {
      if (skip(value)) return value;
      const r = spec.rule(value);
      return r.ok ? r.value : value;
    })(target, key);
    if (!spec.required) ValidateIf((o: Record<string, unknown>) => !skip(o[name]))(target, key);
    ValidateBy({
      name: BODY_FIELD_CONSTRAINT,
      validator: {
        validate: (v: unknown) => v !== undefined && spec.rule(v).ok,
        defaultMessage: (args) => {
          if (args?.value === undefined) return `missing${ISSUE_TYPE_SEPARATOR}Field required`;
          const r = spec.rule(args.value);
          return r.ok ? '' : `${r.type}${ISSUE_TYPE_SEPARATOR}${r.message}`;
        },
      },
    })(target, key);
    ApiProperty({
      ...openApiOf(spec.rule.schema),
      required: !!spec.required,
      ...(spec.nullable ? { nullable: true } : {}),
      ...(spec.default !== undefined ? { default: spec.default } : {}),
      ...(doc.description ? { description: doc.description } : {}),
      ...doc.api,
    } as ApiPropertyOptions)(target, key);
  };
}

/** Every body field of a DTO class, base classes first, in declaration order. */
export function fieldsOf(cls: Type<object>): Record<string, FieldSpec> {
  const chain: FieldTable[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const own = Object.prototype.hasOwnProperty.call(c, FIELDS)
      ? (c as unknown as { [FIELDS]: FieldTable })[FIELDS]
      : null;
    if (own) chain.unshift(own);
  }
  const out: Record<string, FieldSpec> = {};
  for (const table of chain) for (const [name, spec] of table) out[name] = spec;
  return out;
}

/** A rule's schema as `@ApiProperty` options (no undefined keys, so the document stays stable). */
function openApiOf(schema: RuleSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (v === undefined) continue;
    if (k === 'items' || k === 'additionalProperties') out[k] = typeof v === 'object' ? openApiOf(v as RuleSchema) : v;
    else if (k === 'oneOf') out[k] = (v as RuleSchema[]).map(openApiOf);
    else out[k] = v;
  }
  return out;
}

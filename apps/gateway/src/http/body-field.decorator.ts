import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy, ValidateIf } from 'class-validator';
import { FieldSpec, RuleSchema } from './body-schema';

/** The class-validator constraint name every body field reports under (decoded by validation-issues.ts). */
export const BODY_FIELD_CONSTRAINT = 'bodyField';
/** Separates the pydantic error type from its message inside the constraint message. */
export const ISSUE_TYPE_SEPARATOR = '\u0001';

/** What OpenAPI shows beyond the rule: a description, an example, or a richer schema for a union. */
export interface FieldDoc {
  description?: string;
  api?: ApiPropertyOptions;
}

/**
 * Declares one request-body field from its {@link FieldSpec}, the one schema of that field: the DTO transform
 * coerces it (lax, as pydantic does), class-validator checks it with the rule's message, OpenAPI documents the
 * rule's bounds and the default. The MCP tool schemas (mcp/tool-schema.ts `fromField`) read the same spec.
 */
export function BodyField(spec: FieldSpec, doc: FieldDoc = {}): PropertyDecorator {
  return (target, key) => {
    const name = String(key);
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

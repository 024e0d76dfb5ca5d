import type { FieldSpec, RuleSchema } from '../http/body-schema';

// Portable JSON Schemas of the MCP tools (docs/fs-and-mcp.md, "MCP tools"): every node has one explicit
// `type` and a `title`; no anyOf, $ref or $defs; no null defaults. Some MCP clients reject anything
// richer, so a property that mirrors a route field is written from that field's spec (`fromField`), one
// alternative of a union picked by its type, and only the tool's own arguments are written out here.

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

export interface PropSpec {
  type: JsonType;
  description?: string;
  default?: unknown;
  enum?: readonly string[];
  /** Array item type, or object value type. */
  of?: JsonType;
  /** Object items of an array (e.g. `remember.messages`). */
  itemProps?: Record<string, PropSpec>;
  itemRequired?: string[];
  maxItems?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * A tool property from the route field it is sent as: type, enum, bounds and default come from the field's spec,
 * so the tool and the route cannot disagree. `type` picks one alternative of a union field (MCP clients need one
 * explicit type); `doc` adds the description and, for a tool's own spelling, overrides.
 */
export function fromField(field: FieldSpec, doc: Partial<PropSpec> & { description: string }): PropSpec {
  const s = pick(field.rule.schema, doc.type);
  const p: PropSpec = { type: s.type! };
  if (s.enum) p.enum = s.enum;
  if (s.minimum !== undefined) p.minimum = s.minimum;
  if (s.maximum !== undefined) p.maximum = s.maximum;
  if (s.maxItems !== undefined) p.maxItems = s.maxItems;
  if (s.pattern !== undefined) p.pattern = s.pattern;
  if (s.type === 'array' && s.items?.type) p.of = s.items.type;
  if (s.type === 'object' && typeof s.additionalProperties === 'object') p.of = s.additionalProperties.type;
  const t = typeofJson(field.default);
  if (t === p.type || (t === 'integer' && p.type === 'number')) p.default = field.default;
  return { ...p, ...doc };
}

function pick(schema: RuleSchema, type: JsonType | undefined): RuleSchema {
  if (!schema.oneOf) return schema;
  const alternative = schema.oneOf.find((s) => s.type === type);
  if (!alternative) throw new Error(`no ${type ?? 'typed'} alternative in a union field`);
  return alternative;
}

function typeofJson(v: unknown): JsonType | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string' || typeof v === 'boolean') return typeof v as JsonType;
  return undefined;
}

export interface ToolSchema {
  [key: string]: unknown;
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** `target_uri` → `Target Uri`, the title style the reference's schemas carry. */
export function titleOf(name: string): string {
  return name
    .split('_')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');
}

function node(name: string, p: PropSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { type: p.type, title: titleOf(name) };
  if (p.description) out['description'] = p.description;
  if (p.enum) out['enum'] = [...p.enum];
  if (p.default !== undefined && p.default !== null) out['default'] = p.default;
  if (p.maxLength !== undefined) out['maxLength'] = p.maxLength;
  if (p.pattern !== undefined) out['pattern'] = p.pattern;
  if (p.minimum !== undefined) out['minimum'] = p.minimum;
  if (p.maximum !== undefined) out['maximum'] = p.maximum;
  if (p.type === 'array') {
    out['items'] = p.itemProps ? objectSchema(p.itemProps, p.itemRequired) : { type: p.of ?? 'string' };
    if (p.maxItems !== undefined) out['maxItems'] = p.maxItems;
  }
  if (p.type === 'object' && p.of) out['additionalProperties'] = { type: p.of };
  return out;
}

function objectSchema(props: Record<string, PropSpec>, required?: string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) properties[k] = node(k, v);
  return { type: 'object', properties, ...(required?.length ? { required } : {}) };
}

export function toolSchema(props: Record<string, PropSpec>, required: string[] = []): ToolSchema {
  return objectSchema(props, required) as unknown as ToolSchema;
}

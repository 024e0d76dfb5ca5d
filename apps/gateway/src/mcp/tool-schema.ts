// Portable JSON Schemas of the MCP tools (docs/fs-and-mcp.md, "MCP tools"): every node has one explicit
// `type` and a `title`; no anyOf, $ref or $defs; no null defaults. Some MCP clients reject anything
// richer, so the schemas are written out here rather than generated.

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

import { FieldSpec, RuleSchema } from '../http/body-schema';
import { CONTEXT_FIELDS, RECALL_FIELDS } from '../context/context-fields';
import { FIND_FIELDS, SEARCH_FIELDS } from '../find/dto/find-fields';
import { MCP_TOOLS } from './tool-table';
import { toolSchema } from './tool-schema';

// Each retrieval tool sends its arguments as the body of one route: every property named like a route field must
// carry that field's bounds, enum and default (docs/fs-and-mcp.md, "MCP tools").

// The field tables each route's DTO declares its fields from (find/dto/find-request.dto.ts,
// context/dto/context-request.dto.ts).
const ROUTES: Record<string, Record<string, FieldSpec>> = {
  find: FIND_FIELDS,
  search: { ...FIND_FIELDS, ...SEARCH_FIELDS, ...CONTEXT_FIELDS },
  recall: { ...CONTEXT_FIELDS, session_id: SEARCH_FIELDS.session_id, ...RECALL_FIELDS },
};

/** The tool's own spellings, documented where they are declared (tools-retrieval.ts). */
const OWN_SPELLINGS = new Set(['search.detail', 'search.rewrite', 'recall.peer_scope', 'recall.detail']);

function routeSide(schema: RuleSchema, type: string): RuleSchema {
  return schema.oneOf ? schema.oneOf.find((s) => s.type === type)! : schema;
}

describe('MCP tool schemas derive from the route schemas', () => {
  const cases = MCP_TOOLS.filter((t) => ROUTES[t.name]).flatMap((tool) => {
    const props = toolSchema(tool.props, tool.required).properties;
    return Object.entries(props).map(([name, prop]) => [`${tool.name}.${name}`, tool.name, name, prop] as const);
  });

  it.each(cases)('%s', (_label, toolName, name, prop) => {
    const field = ROUTES[toolName]![name];
    if (!field || OWN_SPELLINGS.has(`${toolName}.${name}`)) return;
    const type = prop['type'] as string;
    // recall's max_chars takes a number (truncated by the tool) for the route's integer.
    const s = routeSide(field.rule.schema, type === 'number' && name === 'max_chars' ? 'integer' : type);
    expect(s).toBeDefined();
    expect(prop['minimum']).toBe(s.minimum);
    expect(prop['maximum']).toBe(s.maximum);
    expect(prop['maxItems']).toBe(s.maxItems);
    expect(prop['enum']).toEqual(s.enum);
    // min_score (find, search) is the tool's own default; query has none in a tool.
    if (field.default !== undefined && !['min_score', 'query'].includes(name)) {
      expect(prop['default']).toEqual(field.default);
    }
  });

  it('carries the route bounds and defaults of the context budget and limits', () => {
    const search = toolSchema(MCP_TOOLS.find((t) => t.name === 'search')!.props).properties;
    expect(search['max_tokens']).toMatchObject({ type: 'integer', minimum: 64, maximum: 32000, default: 1600 });
    expect(search['limit']).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 10 });
    expect(search['exclude_uris']).toMatchObject({ type: 'array', maxItems: 200 });
    expect(search['rewrite_max_bullets']).toMatchObject({ minimum: 1, maximum: 20, default: 6 });
    const recall = toolSchema(MCP_TOOLS.find((t) => t.name === 'recall')!.props).properties;
    expect(recall['max_tokens']).toMatchObject({ minimum: 64, maximum: 32000, default: 1600 });
    expect(recall['min_score']).toMatchObject({ type: 'number', default: 0.1 });
  });

  it('keeps the portable shape: one explicit type and a title per node, no unions or null defaults', () => {
    const walk = (node: Record<string, unknown>, path: string): void => {
      expect([path, typeof node['type']]).toEqual([path, 'string']);
      for (const k of ['anyOf', 'oneOf', '$ref']) expect([path, k in node]).toEqual([path, false]);
      expect([path, node['default'] === null]).toEqual([path, false]);
      for (const [k, v] of Object.entries((node['properties'] as Record<string, Record<string, unknown>>) ?? {})) {
        expect(typeof v['title']).toBe('string');
        walk(v, `${path}.${k}`);
      }
    };
    for (const t of MCP_TOOLS) walk(toolSchema(t.props, t.required), t.name);
  });
});

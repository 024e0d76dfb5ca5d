import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppConfig } from '@app/config';
import { bindSchema, boundsCheckedElsewhere, FieldBound, fieldBounds } from '../http/request-bounds';
import { toolSchema } from './tool-schema';
import { MCP_TOOLS } from './tool-table';

type Schema = Record<string, unknown>;

/**
 * What `tools/list` shows: each tool's portable schema (tool-schema.ts) with the configured bounds, so a client
 * sees the bounds the server holds it to (docs/fs-and-mcp.md, "MCP tools"). A property takes the request gate's
 * bound of its name (the gate checks MCP arguments by name too) unless that bound is for another route, and the
 * tools' own arguments take the bound of the check that refuses them.
 */
export function toolListing(config: AppConfig): Tool[] {
  const bounds: Record<string, FieldBound> = {};
  for (const [name, bound] of Object.entries(fieldBounds(config.limits))) {
    if (!bound.route && !bound.schema) bounds[name] = bound;
  }
  Object.assign(bounds, boundsCheckedElsewhere(config), {
    // `read` refuses more URIs than MUNINN_MCP_READ_MAX_URIS by name.
    uris: { ...bounds['uris'], maxItems: config.fs.readMaxUris },
    // The tool's spellings of the route's per-category maps.
    detail_by_category: bounds['detail']!,
    other_peer_penalties: bounds['other_peer_penalty']!,
  } satisfies Record<string, FieldBound>);
  // A remembered message is a session message: MUNINN_SESSION_MESSAGE_MAX_CHARS (sessions' buildMessages).
  const own: Record<string, Record<string, FieldBound>> = {
    remember: { content: { maxChars: config.sessions.messageMaxChars } },
  };
  return MCP_TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: bound(toolSchema(t.props, t.required), { ...bounds, ...own[t.name] }) as Tool['inputSchema'],
  }));
}

/** Binds each property, at any depth (an array's item objects too), to the bound of its name. */
function bound(schema: Schema, bounds: Record<string, FieldBound>): Schema {
  const items = schema['items'] as Schema | undefined;
  if (items) bound(items, bounds);
  for (const [name, prop] of Object.entries((schema['properties'] as Record<string, Schema>) ?? {})) {
    if (Object.hasOwn(bounds, name)) bindSchema(prop, bounds[name]!);
    bound(prop, bounds);
  }
  return schema;
}

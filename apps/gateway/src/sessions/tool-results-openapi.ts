import type { AppConfig } from '@app/config';

// An OpenAPI document is an untyped JSON tree here, as in request-bounds.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

/** One query parameter's bound: an integer range with its default, or a text length. */
export interface QueryBound {
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: number | boolean;
}

const LIST = '/api/v1/sessions/{sessionId}/tool-results';
const READ = '/api/v1/sessions/{sessionId}/tool-results/{toolResultId}';
const SEARCH = '/api/v1/sessions/{sessionId}/tool-results/{toolResultId}/search';

/**
 * The tool-result routes' query parameters, with their configured bounds and defaults
 * (docs/sessions.md "Tool results"), in one table: the service checks them and
 * `applyToolResultBoundsToOpenApi` documents them (their DTOs cannot know configuration).
 */
export function toolResultQueryBounds(config: AppConfig) {
  const t = config.sessions.toolOutputs;
  return {
    list: {
      tool_name: { maxLength: config.limits.idMaxChars },
      limit: { minimum: 1, maximum: t.listMax, default: 50 },
    },
    read: {
      // PostgreSQL `integer`: offsets beyond it can never be inside a stored output.
      offset: { minimum: 0, maximum: 2_147_483_647, default: 0 },
      limit: { minimum: -1, maximum: t.readMaxChars, default: 20_000 },
      include_metadata: { default: true },
    },
    search: {
      q: { maxLength: config.limits.queryMaxChars },
      limit: { minimum: 1, maximum: t.searchMaxMatches, default: 20 },
      context_chars: { minimum: 0, maximum: t.searchContextMaxChars, default: 300 },
    },
  } satisfies Record<'list' | 'read' | 'search', Record<string, QueryBound>>;
}

/** Writes `toolResultQueryBounds` into the OpenAPI document's query parameters of the three routes. */
export function applyToolResultBoundsToOpenApi(doc: Schema, config: AppConfig): void {
  const b = toolResultQueryBounds(config);
  const byRoute: Record<string, Record<string, QueryBound>> = { [LIST]: b.list, [READ]: b.read, [SEARCH]: b.search };
  for (const [path, fields] of Object.entries(byRoute)) {
    for (const p of (doc.paths?.[path]?.get?.parameters ?? []) as Schema[]) {
      if (p.in === 'query' && fields[p.name] && p.schema) Object.assign(p.schema, fields[p.name]);
    }
  }
}

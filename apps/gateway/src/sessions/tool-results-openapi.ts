import type { AppConfig } from '@app/config';

// An OpenAPI document is an untyped JSON tree here, as in request-bounds.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

/**
 * Writes the configured bounds of the tool-result routes' query parameters into the OpenAPI
 * document (their DTOs cannot know configuration): `maximum` of each number, `maxLength` of `q` and
 * `tool_name`. The service checks the same values (docs/sessions.md "Tool results").
 */
export function applyToolResultBoundsToOpenApi(doc: Schema, config: AppConfig): void {
  const t = config.sessions.toolOutputs;
  const byRoute: Record<string, Record<string, Schema>> = {
    '/api/v1/sessions/{sessionId}/tool-results': {
      tool_name: { maxLength: config.limits.idMaxChars },
      limit: { maximum: t.listMax, default: 50 },
    },
    '/api/v1/sessions/{sessionId}/tool-results/{toolResultId}': {
      offset: { maximum: 2_147_483_647, default: 0 },
      limit: { maximum: t.readMaxChars, default: 20_000 },
      include_metadata: { default: true },
    },
    '/api/v1/sessions/{sessionId}/tool-results/{toolResultId}/search': {
      q: { maxLength: config.limits.queryMaxChars },
      limit: { maximum: t.searchMaxMatches, default: 20 },
      context_chars: { maximum: t.searchContextMaxChars, default: 300 },
    },
  };
  for (const [path, fields] of Object.entries(byRoute)) {
    for (const p of (doc.paths?.[path]?.get?.parameters ?? []) as Schema[]) {
      if (p.in === 'query' && fields[p.name] && p.schema) Object.assign(p.schema, fields[p.name]);
    }
  }
}

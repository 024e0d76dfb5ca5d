import type { AppConfig } from '@app/config';
import { IMPORT_PATH } from '../admin/import-openapi';

// An OpenAPI document is an untyped JSON tree here, as in request-bounds.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

/**
 * Writes the body's configured time bounds into the OpenAPI document (docs/limits-and-security.md, "Slow
 * clients"): every operation that takes a body may answer 408 when it does not arrive in time, within
 * MUNINN_HTTP_BODY_TIMEOUT_S, or, for the account import, with no byte for MUNINN_IMPORT_IDLE_S.
 */
export function applySlowClientBoundsToOpenApi(doc: Schema, config: AppConfig): void {
  const rate = config.http.bodyMinRate;
  const more = rate > 0 ? `, plus 1 s per ${rate} bytes it sent (MUNINN_HTTP_BODY_MIN_RATE)` : '';
  const body = `the request body did not arrive within ${config.http.bodyTimeoutMs / 1000} s (MUNINN_HTTP_BODY_TIMEOUT_S)${more}`;
  const idle = `the body sent nothing for ${config.store.import.idleMs / 1000} s (MUNINN_IMPORT_IDLE_S); the import is removed`;
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const op of Object.values<Schema>(item)) {
      if (!op?.requestBody) continue;
      op.responses ??= {};
      op.responses['408'] = {
        description: `DEADLINE_EXCEEDED: ${path === IMPORT_PATH ? idle : body}; the connection is closed`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } } },
      };
    }
  }
}

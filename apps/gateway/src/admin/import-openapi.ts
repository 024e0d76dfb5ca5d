import type { AppConfig } from '@app/config';

// An OpenAPI document is an untyped JSON tree here, as in request-bounds.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

export const IMPORT_PATH = '/api/v1/admin/accounts/{accountId}/import';

/**
 * Writes the import body's configured bounds into the OpenAPI document (its decorators cannot know
 * configuration): the body's bytes as `maxLength` and one line's as `x-max-line-bytes`.
 */
export function applyImportBoundsToOpenApi(doc: Schema, config: AppConfig): void {
  const body = doc.paths?.[IMPORT_PATH]?.post?.requestBody?.content?.['application/x-ndjson'];
  if (!body) return;
  body.schema = {
    type: 'string',
    format: 'binary',
    maxLength: config.store.import.maxBytes,
    'x-max-line-bytes': config.store.import.maxLineBytes,
    description:
      'An account export (GET …/export), one JSON object per line: the account line, nodes, sessions with their archives and messages, the end line',
  };
}

import type { Migration } from './migration';

/**
 * Outbox entries written by `POST /content/reindex` name the URI that reindex was asked for, so a
 * second reindex of the same URI while the first is still pending is a 409 (docs/fs-and-mcp.md,
 * "Reindex"). Ordinary writes leave it NULL and never conflict.
 */
export const REINDEX_ROOT_MIGRATION: Migration = {
  version: 40,
  name: 'outbox entries remember the reindex they belong to',
  sql: `
ALTER TABLE index_outbox ADD COLUMN reindex_root text;
CREATE INDEX index_outbox_reindex_root ON index_outbox (account_id, reindex_root) WHERE reindex_root IS NOT NULL;
`,
};

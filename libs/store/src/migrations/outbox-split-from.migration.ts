import type { Migration } from './migration';

/**
 * An entry split per file after its runs took down workers (docs/architecture.md, "A job that kills its worker")
 * is deleted and replaced: each new entry names the entry it came from, so a retry that waits again for the write's
 * indexing (a resumed 504) still finds it pending, instead of taking the deleted entry for indexed.
 */
export const OUTBOX_SPLIT_FROM_MIGRATION: Migration = {
  version: 109,
  name: 'outbox entries split per file name the entry they came from',
  sql: `
ALTER TABLE index_outbox ADD COLUMN split_from bigint;
CREATE INDEX index_outbox_split_from ON index_outbox (split_from) WHERE split_from IS NOT NULL;
`,
};

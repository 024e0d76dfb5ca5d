import type { Migration } from './migration';

/**
 * Index jobs that kill their worker (docs/architecture.md, "A job that kills its worker"): `open_runs` counts
 * the runs of an outbox entry that began and never ended (a run that ends, done or failed, takes its count
 * back), so the next run knows how many workers the entry has taken down; `alone_runs` counts, the same way, the
 * runs made with no other index job beside them in their process; `held_at` marks an entry set aside after one
 * of those died too, which the metrics count.
 */
export const INDEX_RUNS_MIGRATION: Migration = {
  version: 105,
  name: 'index outbox open runs and holds',
  sql: `
ALTER TABLE index_outbox ADD COLUMN open_runs integer NOT NULL DEFAULT 0;
ALTER TABLE index_outbox ADD COLUMN alone_runs integer NOT NULL DEFAULT 0;
ALTER TABLE index_outbox ADD COLUMN held_at timestamptz;
CREATE INDEX index_outbox_held ON index_outbox (account_id) WHERE held_at IS NOT NULL;
`,
};

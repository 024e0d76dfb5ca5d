import type { Migration } from './migration';

/**
 * A retry after a wait that ran out (docs/limits-and-security.md): a kept 504 whose write was stored carries,
 * as JSON, what its retries wait for again (the write's outbox entries and the answer to complete), until one of
 * them answers and its reply replaces the 504.
 */
export const IDEMPOTENCY_RESUME_MIGRATION: Migration = {
  version: 106,
  name: 'idempotency replies a retry resumes',
  sql: `ALTER TABLE idempotency_keys ADD COLUMN reply_resume text;`,
};

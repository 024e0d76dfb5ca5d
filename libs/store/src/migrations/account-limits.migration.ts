import type { Migration } from './migration';

/**
 * An account's own limits (docs/limits-and-security.md, "Per-account limits"): a JSON object of the
 * limits it has other values of than the deployment's; empty for every account at first.
 */
export const ACCOUNT_LIMITS_MIGRATION: Migration = {
  version: 98,
  name: 'per-account limits',
  sql: `ALTER TABLE accounts ADD COLUMN limits jsonb NOT NULL DEFAULT '{}'::jsonb`,
};

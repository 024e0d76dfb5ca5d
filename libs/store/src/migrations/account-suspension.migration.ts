import type { Migration } from './migration';

/**
 * A suspended account (docs/limits-and-security.md, "Suspending an account"): when, and the operator's
 * reason; both null for an account in service. Its keys are refused while its rows stay as they are.
 */
export const ACCOUNT_SUSPENSION_MIGRATION: Migration = {
  version: 100,
  name: 'account suspension',
  sql: `ALTER TABLE accounts ADD COLUMN suspended_at timestamptz, ADD COLUMN suspended_reason text`,
};

import type { Migration } from './migration';

/**
 * The heartbeat of a running account import (docs/limits-and-security.md, "Importing an account"), with
 * how far it got (lines read, what was written): the importing gateway refreshes both while the body
 * streams in, and the import's end (or an operator's
 * suspension change) clears it. An account still suspended by its import whose heartbeat stopped (its
 * gateway died) is removed by any gateway; accounts without one are never removed that way.
 */
export const IMPORT_HEARTBEAT_MIGRATION: Migration = {
  version: 103,
  name: 'account import heartbeat',
  sql: `ALTER TABLE accounts ADD COLUMN import_heartbeat_at timestamptz, ADD COLUMN import_progress jsonb`,
};

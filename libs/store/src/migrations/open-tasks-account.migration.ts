import type { Migration } from './migration';

/**
 * An account's open commit tasks, found without reading its finished ones (kept for a day, or a week
 * when failed): the commit backlog bound counts them at most once per second per account and gateway
 * (docs/limits-and-security.md, "Backlog bounds").
 */
export const OPEN_TASKS_ACCOUNT_MIGRATION: Migration = {
  version: 97,
  name: 'open session tasks by account',
  sql: `CREATE INDEX session_tasks_open_account ON session_tasks (account_id) WHERE status IN ('pending', 'running', 'cancelling')`,
};

import type { Migration } from './migration';

/**
 * What a commit's extraction has already had from the model (docs/sessions.md, "A provider that fails
 * for a while"): the answered windows of a running task, so a job retried after a transient provider
 * failure resumes at the window that failed instead of paying for the answered ones again. Cleared when
 * the task ends.
 */
export const EXTRACT_PROGRESS_MIGRATION: Migration = {
  version: 104,
  name: 'session task extraction progress',
  sql: `ALTER TABLE session_tasks ADD COLUMN extract_progress jsonb`,
};

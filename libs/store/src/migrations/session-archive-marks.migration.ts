import type { Migration } from './migration';

/**
 * The highest archive index a session id has used, kept past the session's deletion (docs/sessions.md,
 * "Archive numbers"). Event files are named by session key and archive index, and a deleted session's
 * memories stay: a re-created session that numbered its archives from 1 again wrote its first events over
 * the deleted session's events of that day. A commit takes one past this mark, so (session id, archive
 * index) never repeats for a user. Filled from the archives and from the commit tasks, which outlive
 * their session.
 */
export const SESSION_ARCHIVE_MARKS_MIGRATION: Migration = {
  version: 96,
  name: 'archive numbers outlive their session',
  sql: `
CREATE TABLE session_archive_marks (
  account_id     text NOT NULL,
  user_id        text NOT NULL,
  session_id     text NOT NULL,
  highest_index  integer NOT NULL,
  PRIMARY KEY (account_id, user_id, session_id)
);

INSERT INTO session_archive_marks (account_id, user_id, session_id, highest_index)
SELECT account_id, user_id, session_id, max(n) FROM (
  SELECT account_id, user_id, session_id, archive_index AS n FROM session_archives
  UNION ALL
  SELECT account_id, user_id, session_id, commit_count FROM sessions WHERE commit_count > 0
  UNION ALL
  SELECT account_id, user_id, resource_id, (job->>'archiveIndex')::int FROM session_tasks
   WHERE task_type = 'session_commit' AND jsonb_typeof(job->'archiveIndex') = 'number'
) AS used GROUP BY 1, 2, 3;
`,
};

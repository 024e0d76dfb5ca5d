import type { Migration } from './migration';

/**
 * Externalised tool outputs of a session (docs/sessions.md "Tool results"). The output itself is the
 * file `…/sessions/<sid>/tool-results/<id>` in `nodes` (so fs ls/read/grep reach it); this row is its
 * record for the tool-result routes. Deleting the session deletes both.
 */
export const TOOL_RESULTS_MIGRATION: Migration = {
  version: 34,
  name: 'session tool results',
  sql: `
CREATE TABLE session_tool_results (
  account_id      text NOT NULL,
  user_id         text NOT NULL,
  session_id      text NOT NULL,
  tool_result_id  text NOT NULL,
  tool_id         text NOT NULL,
  tool_name       text NOT NULL,
  message_id      text NOT NULL,
  mime_type       text NOT NULL,
  original_chars  integer NOT NULL,
  preview_chars   integer NOT NULL,
  sha256          text NOT NULL,
  reason          text NOT NULL,
  -- clock_timestamp: the results of one message write list in the order they were stored.
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (account_id, user_id, session_id, tool_result_id),
  FOREIGN KEY (account_id, user_id, session_id) REFERENCES sessions(account_id, user_id, session_id) ON DELETE CASCADE
);
`,
};

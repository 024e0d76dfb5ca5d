/** Sessions that produce memory: session meta, archives and commit tasks (see docs/sessions.md). */
// Typed structurally (not as Migration) so this file and migrations.ts do not import each other.
export const SESSION_MIGRATIONS: { version: number; name: string; sql: string }[] = [
  {
    version: 30,
    name: 'session meta, archives, tasks',
    sql: `
ALTER TABLE sessions ADD COLUMN pending_tokens integer NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN commit_count integer NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN keep_recent_count integer NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN last_commit_at timestamptz;
ALTER TABLE sessions ADD COLUMN last_message_at timestamptz;
ALTER TABLE sessions ADD COLUMN last_auto_commit_at timestamptz;
ALTER TABLE sessions ADD COLUMN auto_commit_policy jsonb;
ALTER TABLE sessions ADD COLUMN event_tags text[] NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN memories_extracted jsonb NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN llm_token_usage jsonb NOT NULL DEFAULT '{}';

-- Message fields the client chose (peer_id, its created_at, turn_id, message_kind, source ids) and the
-- message's token estimate, so pending_tokens never needs a rescan.
ALTER TABLE messages ADD COLUMN extra jsonb NOT NULL DEFAULT '{}';
ALTER TABLE messages ADD COLUMN tokens integer NOT NULL DEFAULT 0;

-- One row per commit: the archived messages (moved out of messages in the commit's transaction) and,
-- once extraction ends, the archive summary. status: pending → done | failed.
CREATE TABLE session_archives (
  account_id     text NOT NULL,
  user_id        text NOT NULL,
  session_id     text NOT NULL,
  archive_index  integer NOT NULL,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  messages       jsonb NOT NULL,
  overview       text NOT NULL DEFAULT '',
  abstract       text NOT NULL DEFAULT '',
  overview_tokens integer NOT NULL DEFAULT 0,
  error          text,
  task_id        text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id, session_id, archive_index),
  FOREIGN KEY (account_id, user_id, session_id) REFERENCES sessions(account_id, user_id, session_id) ON DELETE CASCADE
);

-- Task records outlive their session (a deleted session's queued commit ends failed, still readable).
CREATE TABLE session_tasks (
  task_id      text PRIMARY KEY,
  account_id   text NOT NULL,
  user_id      text NOT NULL,
  task_type    text NOT NULL,
  resource_id  text NOT NULL,
  status       text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  result       jsonb,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_tasks_owner ON session_tasks (account_id, user_id, created_at DESC);
`,
  },
  {
    version: 31,
    name: 'session task job payloads',
    sql: `
-- The extract job of a commit, kept with its task: the extractor's relay enqueues it again (same job
-- id) when the queue lost it (Redis restarted empty, the enqueue never reached it).
ALTER TABLE session_tasks ADD COLUMN job jsonb;
CREATE INDEX session_tasks_open ON session_tasks (updated_at) WHERE status IN ('pending', 'running');
`,
  },
  {
    version: 32,
    name: 'session memory policy, task cancellation',
    sql: `
-- The session's normalised memory_policy (null: the default); the commit copies it into its job.
ALTER TABLE sessions ADD COLUMN memory_policy jsonb;
-- Cancellation: pending|running -> cancelling -> cancelled (docs/sessions.md "Tasks").
ALTER TABLE session_tasks DROP CONSTRAINT IF EXISTS session_tasks_status_check;
ALTER TABLE session_tasks ADD CONSTRAINT session_tasks_status_check
  CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelling', 'cancelled'));
DROP INDEX IF EXISTS session_tasks_open;
CREATE INDEX session_tasks_open ON session_tasks (updated_at) WHERE status IN ('pending', 'running', 'cancelling');
-- Expiry sweeps terminal records by age.
CREATE INDEX session_tasks_terminal ON session_tasks (updated_at) WHERE status IN ('completed', 'failed', 'cancelled');
`,
  },
  {
    version: 33,
    name: 'session turn-budget retention',
    sql: `
-- The retention a commit remembers (docs/sessions.md "Turn-budget retention"): '' or 'turn_budget'.
ALTER TABLE sessions ADD COLUMN retention_mode text NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN keep_recent_turn_count integer NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN retained_message_token_budget integer NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN min_raw_tail_steps integer NOT NULL DEFAULT 1;
`,
  },
];

import type { Migration } from './migration';
import { idleCheckAfter } from '../repositories/session-idle-check.repository';

/**
 * Idle checks the queue lost (docs/sessions.md, "Idle commits"): `idle_check_at` is when a session's next idle
 * check is due, set with the message that made it due; the extractor's idle relay asks again for checks overdue
 * (the partial index holds only sessions waiting for one). Sessions with uncommitted content and an idle policy
 * get theirs from their last message, so checks lost before this version are asked for too.
 */
export const SESSION_IDLE_CHECK_MIGRATION: Migration = {
  version: 107,
  name: 'session idle check due times',
  sql: `
ALTER TABLE sessions ADD COLUMN idle_check_at timestamptz;
CREATE INDEX sessions_idle_check ON sessions (idle_check_at) WHERE idle_check_at IS NOT NULL;
UPDATE sessions SET idle_check_at = ${idleCheckAfter('last_message_at')}
  WHERE pending_tokens > 0 AND last_message_at IS NOT NULL AND auto_commit_policy IS NOT NULL;
`,
};

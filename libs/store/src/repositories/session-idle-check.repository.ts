import { SessionIdleJob } from '@app/contracts';
import { Db } from '../db/db.port';
import { IMPORT_SUSPENSION_REASON } from './import-suspension';

/**
 * When a session's idle check falls due after a message at `at` (an SQL timestamp expression), read from its
 * policy (`policy`, an SQL jsonb expression: the row's own unless a statement replaces it); NULL without an idle
 * timeout. Used inside the statements that set `last_message_at` or the policy.
 */
export function idleCheckAfter(at: string, policy = 'auto_commit_policy'): string {
  const idle = `(${policy})->>'idle_timeout_seconds'`;
  return `CASE WHEN jsonb_typeof((${policy})->'idle_timeout_seconds') = 'number' AND (${idle})::numeric > 0
    THEN ${at} + (${idle})::numeric * interval '1 second' END`;
}

const PK = 'account_id = $1 AND user_id = $2 AND session_id = $3';

/**
 * Idle checks the queue lost (docs/sessions.md, "Idle commits"): `sessions.idle_check_at` (migration 107) says
 * when a session's next idle check is due, set in the same statement as the message that made it due, so a
 * check whose job was never enqueued (the queue away at the write), or was lost after (Redis restarted empty, a
 * job failed at its stall limit), is asked for again by the extractor's idle relay.
 */
export class SessionIdleCheckRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims up to `limit` sessions whose check is overdue by `overdueMs` and moves their due time `retryMs` on, in
   * one statement (rows another relay holds are skipped), and returns their checks to enqueue: no row stays locked
   * while the queue is called, and a check whose enqueue fails, or that is lost again, is claimed again then.
   */
  async claimOverdue(limit: number, overdueMs: number, retryMs: number): Promise<SessionIdleJob[]> {
    // Not while the session's account is being imported: a session the import closed early would be committed,
    // and extracted without the model (the import suspends the account), before the import is in.
    const { rows } = await this.db.query<{ account_id: string; user_id: string; session_id: string }>(
      `UPDATE sessions SET idle_check_at = now() + $3 * interval '1 millisecond'
       WHERE (account_id, user_id, session_id) IN (
         SELECT s.account_id, s.user_id, s.session_id FROM sessions s
         WHERE s.idle_check_at <= now() - $2 * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.account_id = s.account_id AND a.suspended_reason = $4)
         ORDER BY s.idle_check_at LIMIT $1 FOR UPDATE OF s SKIP LOCKED)
       RETURNING account_id, user_id, session_id`,
      [limit, overdueMs, retryMs, IMPORT_SUSPENSION_REASON],
    );
    return rows.map((r) => ({ accountId: r.account_id, userId: r.user_id, sessionId: r.session_id }));
  }

  /**
   * The session's due time as stored, exactly (text, to the microsecond), for {@link checked}; null: none due;
   * undefined: no session. A check reads it before the session.
   */
  async dueOf(job: SessionIdleJob): Promise<string | null | undefined> {
    const { rows } = await this.db.query<{ at: string | null }>(
      `SELECT idle_check_at::text AS at FROM sessions WHERE ${PK}`,
      [job.accountId, job.userId, job.sessionId],
    );
    return rows[0] === undefined ? undefined : rows[0].at;
  }

  /**
   * What a check found: nothing left to wait for (`nextAtMs` null: cleared), or its next check at `nextAtMs`.
   * Only while the due time is still the one the check read first (`seenDue`): a message, a policy change or an
   * import that wrote the row since computed its due time from what the check did not see (a threshold the
   * message went over, a throttle's end), and the check's stale one would push it back or clear it.
   */
  async checked(job: SessionIdleJob, nextAtMs: number | null, seenDue: string | null): Promise<void> {
    await this.db.query(
      `UPDATE sessions SET idle_check_at = to_timestamp($5::double precision / 1000)
       WHERE ${PK} AND idle_check_at IS NOT DISTINCT FROM $4::timestamptz`,
      [job.accountId, job.userId, job.sessionId, seenDue, nextAtMs],
    );
  }
}

import { SessionIdleJob } from '@app/contracts';
import { Db } from '../db/db.port';

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
   * Claims up to `limit` sessions whose check is overdue by `overdueMs`, hands their jobs to `enqueue` (inside
   * the claim, so a failed enqueue claims nothing), and moves their due time `retryMs` on: a check that is lost
   * again is asked for again then. Rows another relay holds are skipped.
   */
  async claimOverdue(
    limit: number,
    overdueMs: number,
    retryMs: number,
    enqueue: (jobs: SessionIdleJob[]) => Promise<void>,
  ): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ account_id: string; user_id: string; session_id: string }>(
        `SELECT account_id, user_id, session_id FROM sessions
         WHERE idle_check_at <= now() - $2 * interval '1 millisecond'
         ORDER BY idle_check_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit, overdueMs],
      );
      if (rows.length === 0) return 0;
      await enqueue(rows.map((r) => ({ accountId: r.account_id, userId: r.user_id, sessionId: r.session_id })));
      await tx.query(
        `UPDATE sessions s SET idle_check_at = now() + $4 * interval '1 millisecond'
         FROM unnest($1::text[], $2::text[], $3::text[]) AS k(account_id, user_id, session_id)
         WHERE s.account_id = k.account_id AND s.user_id = k.user_id AND s.session_id = k.session_id`,
        [rows.map((r) => r.account_id), rows.map((r) => r.user_id), rows.map((r) => r.session_id), retryMs],
      );
      return rows.length;
    });
  }

  /**
   * What a check found: nothing left to wait for (`nextAtMs` null: cleared, unless a message came after the one
   * the check saw, `seenMessageAt`, which set its own due time), or its next check at `nextAtMs` (never earlier
   * than a due time set since).
   */
  async checked(job: SessionIdleJob, nextAtMs: number | null, seenMessageAt: string): Promise<void> {
    const key = [job.accountId, job.userId, job.sessionId];
    if (nextAtMs === null) {
      // The session row's time has microseconds; what the check read, milliseconds.
      await this.db.query(
        `UPDATE sessions SET idle_check_at = NULL
         WHERE ${PK} AND (last_message_at IS NULL OR date_trunc('milliseconds', last_message_at) <= $4::timestamptz)`,
        [...key, seenMessageAt || null],
      );
      return;
    }
    await this.db.query(
      `UPDATE sessions SET idle_check_at = greatest(idle_check_at, to_timestamp($4::double precision / 1000))
       WHERE ${PK}`,
      [...key, nextAtMs],
    );
  }
}

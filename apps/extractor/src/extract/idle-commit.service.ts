import { Injectable } from '@nestjs/common';
import { QueueName, SessionIdleJob, SessionIdleResult } from '@app/contracts';
import { Identity, idleCommitWait, storedPolicy } from '@app/kernel';
import { JobBus, sessionIdleKey } from '@app/queue';
import {
  SessionArchiveRepository,
  SessionIdleCheckRepository,
  SessionRepository,
  SessionTaskRepository,
} from '@app/store';

/** While a commit of the session is still running, an idle-due session is looked at again this much later. */
const BUSY_RETRY_MS = 30_000;

/**
 * Idle commits: a delayed `session-idle` job (scheduled by the gateway after a message write, one
 * waiting per session) re-reads the session and commits it once it has been idle for its policy's
 * `idle_timeout_seconds` — everything, without remembering 0 as the keep window. Not due yet: the job
 * schedules itself for the remaining time. No timer lives in any process. See docs/sessions.md
 * "Automatic commit".
 */
@Injectable()
export class IdleCommitService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly archives: SessionArchiveRepository,
    private readonly tasks: SessionTaskRepository,
    private readonly checks: SessionIdleCheckRepository,
    private readonly bus: JobBus,
  ) {}

  /**
   * One check, and what it leaves for the idle relay: the due time of the check it scheduled, or nothing to
   * wait for (committed, or nothing to commit), so a check lost from here on is asked for again.
   */
  async run(job: SessionIdleJob): Promise<SessionIdleResult> {
    const outcome = await this.check(job);
    if (outcome.seen !== null) await this.checks.checked(job, outcome.nextAtMs, outcome.seen);
    return outcome.result;
  }

  /** The check's result, its next due time, and the last message it saw (null: no session). */
  private async check(
    job: SessionIdleJob,
  ): Promise<{ result: SessionIdleResult; nextAtMs: number | null; seen: string | null }> {
    const identity: Identity = { accountId: job.accountId, userId: job.userId, role: 'user', actorPeerId: null };
    const s = await this.sessions.find(identity, job.sessionId);
    if (!s) return { result: { status: 'skipped' }, nextAtMs: null, seen: null };
    const seen = s.last_message_at;
    const ms = (iso: string) => (iso ? Date.parse(iso) : null);
    const now = Date.now();
    const wait = idleCommitWait(
      storedPolicy(s.auto_commit_policy),
      {
        pendingTokens: s.pending_tokens,
        messageCount: s.message_count,
        keepRecentCount: s.keep_recent_count,
        lastAutoCommitAt: ms(s.last_auto_commit_at),
        lastMessageAt: ms(s.last_message_at),
      },
      now,
    );
    if (wait === null) return { result: { status: 'skipped' }, nextAtMs: null, seen };
    const busy = wait <= 0 && (await this.tasks.inFlight(identity, job.sessionId));
    if (wait > 0 || busy) {
      const delayMs = wait > 0 ? wait : BUSY_RETRY_MS;
      await this.bus.enqueue(QueueName.SessionIdle, job, { delayMs, jobId: `${sessionIdleKey(job)}-${now + delayMs}` });
      return { result: { status: 'rescheduled' }, nextAtMs: now + delayMs, seen };
    }
    await this.archives.commit(
      identity,
      job.sessionId,
      { keepRecentCount: 0, persistKeep: false, auto: true, eventTags: null },
      (j) => this.bus.enqueue(QueueName.Extract, j, { jobId: j.taskId }),
    );
    return { result: { status: 'committed' }, nextAtMs: null, seen };
  }
}

import { Injectable } from '@nestjs/common';
import { QueueName, SessionIdleJob, SessionIdleResult } from '@app/contracts';
import { Identity, idleCommitWait, storedPolicy } from '@app/kernel';
import { JobBus, sessionIdleKey } from '@app/queue';
import { SessionArchiveRepository, SessionRepository, SessionTaskRepository } from '@app/store';

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
    private readonly bus: JobBus,
  ) {}

  async run(job: SessionIdleJob): Promise<SessionIdleResult> {
    const identity: Identity = { accountId: job.accountId, userId: job.userId, role: 'user', actorPeerId: null };
    const s = await this.sessions.find(identity, job.sessionId);
    if (!s) return { status: 'skipped' };
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
    if (wait === null) return { status: 'skipped' };
    const busy = wait <= 0 && (await this.tasks.inFlight(identity, job.sessionId));
    if (wait > 0 || busy) {
      const delayMs = wait > 0 ? wait : BUSY_RETRY_MS;
      await this.bus.enqueue(QueueName.SessionIdle, job, { delayMs, jobId: `${sessionIdleKey(job)}-${now + delayMs}` });
      return { status: 'rescheduled' };
    }
    await this.archives.commit(
      identity,
      job.sessionId,
      { keepRecentCount: 0, persistKeep: false, auto: true, eventTags: null },
      (j) => this.bus.enqueue(QueueName.Extract, j, { jobId: j.taskId }),
    );
    return { status: 'committed' };
  }
}

import { Injectable } from '@nestjs/common';
import { QueueName, SessionIdleJob, SessionIdleResult } from '@app/contracts';
import { Identity, sessionCheck, storedPolicy } from '@app/kernel';
import { JobBus, scheduleSessionIdle } from '@app/queue';
import { commitStateOf, SessionArchiveRepository, SessionIdleCheckRepository, SessionRepository } from '@app/store';

/** While a commit of the session is still running, a session whose commit is due is looked at again this much later. */
const BUSY_RETRY_MS = 30_000;

/**
 * A session's check (docs/sessions.md, "Automatic commit"): a delayed `session-idle` job, one waiting per session,
 * scheduled by the gateway after a message write for the session's next due time, and by the idle relay for a
 * check that was lost. It re-reads the session and commits everything once it has been idle for its policy's
 * `idle_timeout_seconds` (without remembering 0 as the keep window), or commits by threshold (keeping the policy's
 * `keep_recent_count`) when one is due and the gateway's own commit did not happen; nothing due yet, it schedules
 * itself for the next due time. No timer lives in any process.
 */
@Injectable()
export class IdleCommitService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly archives: SessionArchiveRepository,
    private readonly checks: SessionIdleCheckRepository,
    private readonly bus: JobBus,
  ) {}

  /**
   * One check, and what it leaves for the idle relay: the due time of the check it scheduled, or nothing to
   * wait for (committed, or nothing to commit), so a check lost from here on is asked for again.
   */
  async run(job: SessionIdleJob): Promise<SessionIdleResult> {
    const seenDue = await this.checks.dueOf(job);
    const outcome = await this.check(job);
    if (outcome.found && seenDue !== undefined) await this.checks.checked(job, outcome.nextAtMs, seenDue);
    return outcome.result;
  }

  /** The check's result, its next due time, and whether the session exists. */
  private async check(
    job: SessionIdleJob,
  ): Promise<{ result: SessionIdleResult; nextAtMs: number | null; found: boolean }> {
    const identity: Identity = { accountId: job.accountId, userId: job.userId, role: 'user', actorPeerId: null };
    const s = await this.sessions.find(identity, job.sessionId);
    if (!s) return { result: { status: 'skipped' }, nextAtMs: null, found: false };
    const now = Date.now();
    const policy = storedPolicy(s.auto_commit_policy);
    const { commit, nextInMs } = sessionCheck(policy, commitStateOf(s), now);
    if (commit === null && nextInMs === null) return { result: { status: 'skipped' }, nextAtMs: null, found: true };
    if (commit === null)
      return { result: { status: 'rescheduled' }, nextAtMs: await this.again(job, nextInMs!, now), found: true };
    const idle = commit === 'idle';
    const out = await this.archives.commit(
      identity,
      job.sessionId,
      idle
        ? { keepRecentCount: 0, persistKeep: false, auto: true, eventTags: null }
        : { keepRecentCount: policy!.keep_recent_count, persistKeep: true, auto: true, eventTags: null },
      (j) => this.bus.enqueue(QueueName.Extract, j, { jobId: j.taskId }),
    );
    // A commit of the session is still pending or running (decided under the session's lock): look again later.
    if (out.status === 'skipped' && out.reason === 'commit_in_flight')
      return { result: { status: 'rescheduled' }, nextAtMs: await this.again(job, BUSY_RETRY_MS, now), found: true };
    // After a threshold commit the idle check is still due for what the keep window kept.
    const nextAtMs = nextInMs === null ? null : await this.again(job, nextInMs, now);
    return { result: { status: 'committed' }, nextAtMs, found: true };
  }

  /**
   * Schedules this session's next check in `delayMs`; its due time. Under the session's one key, as the gateway's
   * and the relay's: this check is running, so the queue keeps it as the one to start when this one ends, and a
   * message written meanwhile moves that one instead of adding a second (with an id of its own, as before, the
   * two both ran).
   */
  private async again(job: SessionIdleJob, delayMs: number, now: number): Promise<number> {
    await scheduleSessionIdle(this.bus, job, delayMs);
    return now + delayMs;
  }
}

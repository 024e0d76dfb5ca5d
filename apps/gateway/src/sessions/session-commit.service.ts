import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import {
  Identity,
  KernelError,
  KernelErrorCode,
  normaliseEventTags,
  sessionCheck,
  storedPolicy,
  TURN_BUDGET_DEFAULTS,
  TurnBudget,
} from '@app/kernel';
import { JobBus, scheduleSessionIdle } from '@app/queue';
import {
  CommitOutcome,
  commitStateOf,
  SessionArchiveRepository,
  SessionRecord,
  SessionTaskRepository,
} from '@app/store';
import { BacklogService } from '../http/backlog.service';
import { CommitDto } from './dto/sessions.dto';

/**
 * Commits: archive now (one store transaction that also enqueues the extraction job), extract on the
 * extractor workers. Automatic commits after message writes use the same path. See docs/sessions.md "Commit".
 */
@Injectable()
export class SessionCommitService {
  private readonly logger = new Logger(SessionCommitService.name);
  /** Automatic commits this process has in flight, per (account, user, session). */
  private readonly autoInFlight = new Set<string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly archives: SessionArchiveRepository,
    private readonly tasks: SessionTaskRepository,
    private readonly bus: JobBus,
    private readonly backlog: BacklogService,
  ) {}

  /**
   * An explicit commit (REST, MCP). Refused (429) while the account's commits awaiting extraction are at
   * their bound; automatic commits are not (at most one in flight per session).
   */
  async commit(caller: Identity, sessionId: string, dto: CommitDto) {
    const tags = dto.extraction_metadata?.event?.tags;
    const keep = dto.keep_recent_count ?? 0;
    const turnBudget = turnBudgetOf(dto);
    await this.assertRoom(caller);
    const out = await this.run(caller, sessionId, {
      keepRecentCount: keep,
      persistKeep: true,
      auto: false,
      eventTags: tags == null ? null : normaliseEventTags(tags),
      turnBudget,
    });
    return view(caller, sessionId, out);
  }

  /** Whether the session was ever committed (an automatic commit in the background included). */
  committedBefore(caller: Identity, sessionId: string): Promise<boolean> {
    return this.tasks.anyCommit(caller, sessionId);
  }

  /** Refuses (429) while the account's commits awaiting extraction are at their bound. */
  assertRoom(caller: Identity): Promise<void> {
    return this.backlog.assertCommitRoom(caller);
  }

  /**
   * After a message write: commits in the background when a threshold of the session's policy is due (never
   * fails the write; a failure is logged), skipped while a commit of the session is pending or running; and
   * schedules the session's next check, at its idle time or when a throttled threshold commit falls due. The
   * append kept a due threshold commit's time with the session, so one lost here is asked for by the idle relay
   * (docs/sessions.md, "Automatic commit").
   */
  maybeAutoCommit(caller: Identity, s: SessionRecord): void {
    const policy = storedPolicy(s.auto_commit_policy);
    const check = sessionCheck(policy, commitStateOf(s), Date.now());
    // Idle already (a policy change with a shorter idle timeout): the check, asked for now, commits it. Before, no
    // check was asked for, and the session waited for the idle relay (three outbox graces, 30 s by default).
    if (check.commit === 'idle') return this.scheduleCheck(caller, s.session_id, 0);
    if (check.nextInMs !== null) this.scheduleCheck(caller, s.session_id, check.nextInMs);
    if (!policy || check.commit !== 'threshold') return;
    const key = `${caller.accountId}\u0000${caller.userId}\u0000${s.session_id}`;
    if (this.autoInFlight.has(key)) return;
    this.autoInFlight.add(key);
    void (async () => {
      const out = await this.run(caller, s.session_id, {
        keepRecentCount: policy.keep_recent_count,
        persistKeep: true,
        auto: true,
        eventTags: null,
      });
      // A commit of the session still runs: the check, asked for now, waits for it and then commits.
      if (out.status === 'skipped' && out.reason === 'commit_in_flight') this.scheduleCheck(caller, s.session_id, 0);
    })()
      .catch((err: Error) => this.logger.warn(`automatic commit of ${s.session_id} failed: ${err.message}`))
      .finally(() => this.autoInFlight.delete(key));
  }

  /** Schedules the session's next check (one waiting per session, moved to the newest due time). */
  private scheduleCheck(caller: Identity, sessionId: string, delayMs: number): void {
    const job = { accountId: caller.accountId, userId: caller.userId, sessionId };
    scheduleSessionIdle(this.bus, job, delayMs).catch((err: Error) =>
      this.logger.warn(`idle commit of ${sessionId} not scheduled: ${err.message}`),
    );
  }

  private run(
    caller: Identity,
    sessionId: string,
    req: Parameters<SessionArchiveRepository['commit']>[2],
  ): Promise<CommitOutcome> {
    // The job id is the task id: a replayed enqueue of this commit is a no-op.
    return this.archives.commit(caller, sessionId, req, (job) =>
      this.bus.enqueue(QueueName.Extract, job, { jobId: job.taskId }),
    );
  }
}

/**
 * `retention_mode:"turn_budget"` and its settings (defaults 3 turns, 12000 tokens, 1 step); the settings
 * without the mode are 400, as in the reference. See docs/sessions.md "Turn-budget retention".
 */
function turnBudgetOf(dto: CommitDto): TurnBudget | null {
  if (dto.retention_mode !== undefined && dto.retention_mode !== null && dto.retention_mode !== 'turn_budget') {
    throw new KernelError(KernelErrorCode.InvalidArgument, 'retention_mode must be "turn_budget" or null', {
      field: 'retention_mode',
    });
  }
  if (dto.retention_mode !== 'turn_budget') {
    for (const f of ['keep_recent_turn_count', 'retained_message_token_budget', 'min_raw_tail_steps'] as const) {
      if (dto[f] !== undefined)
        throw new KernelError(KernelErrorCode.InvalidArgument, `${f} requires retention_mode`, { field: f });
    }
    return null;
  }
  return {
    turns: dto.keep_recent_turn_count ?? TURN_BUDGET_DEFAULTS.turns,
    tokenBudget: dto.retained_message_token_budget ?? TURN_BUDGET_DEFAULTS.tokenBudget,
    minTailSteps: dto.min_raw_tail_steps ?? TURN_BUDGET_DEFAULTS.minTailSteps,
  };
}

function view(caller: Identity, sessionId: string, out: CommitOutcome) {
  if (out.status === 'accepted') {
    return {
      session_id: sessionId,
      status: 'accepted',
      task_id: out.taskId,
      archive_uri: out.archiveUri,
      archived: true,
      trace_id: null,
      estimated_active_tokens: out.activeTokens,
      budget_exceeded: out.budgetExceeded,
    };
  }
  const base = {
    session_id: sessionId,
    status: 'skipped',
    task_id: null,
    archive_uri: null,
    archived: false,
    reason: out.reason,
    trace_id: null,
  };
  return out.reason === 'all_within_keep_window'
    ? { ...base, estimated_active_tokens: out.activeTokens, budget_exceeded: false }
    : base;
}

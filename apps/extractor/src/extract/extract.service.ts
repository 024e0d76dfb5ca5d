import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ExtractJob, ExtractResult, ManualExtractJob, ManualExtractResult } from '@app/contracts';
import {
  EffectiveExtraction,
  effectiveExtraction,
  estimateTokens,
  ExistingPage,
  Identity,
  KernelError,
  KernelErrorCode,
  manualExtractionName,
  memoryRoot,
  MemoryRouting,
  mergeQuotes,
  MemoryPolicy,
  ProposedMemory,
  serverDefaultMemoryPolicy,
  storedMemoryPolicy,
} from '@app/kernel';
import { enqueueIndex, JobBus, ModelBudget } from '@app/queue';
import {
  AccountLimitsService,
  archiveUri,
  IdentityRepository,
  NodeRepository,
  SessionArchiveRepository,
  SessionRepository,
  SessionTaskRepository,
  TenantBusy,
  UsageConsumed,
  WriteManyOutcome,
  WriteOp,
} from '@app/store';
import { BUDGET_SPENT_REFUSAL, ExtractBudget, ExtractorRun, MemoryExtractor } from './memory-extractor';

const POLL_MS = 200;
/** How long a job waits for its commit's transaction to become visible, and for its predecessor. */
const TASK_VISIBLE_MS = 5_000;
const PREDECESSOR_MS = 20_000;
/** Peer spaces whose pages the model is shown (an archive may name many peers; the prompt stays bounded). */
const PEER_SPACES = 4;
/** Hex SHA-256 of a session id: the kernel names event files with it (`sessionFileKey`, docs/sessions.md "Event file names"). */
const sessionDigest = (sessionId: string) => createHash('sha256').update(sessionId, 'utf8').digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PERMANENT = new Set([
  KernelErrorCode.InvalidArgument,
  KernelErrorCode.InvalidUri,
  KernelErrorCode.PermissionDenied,
  KernelErrorCode.NotFound,
  KernelErrorCode.AlreadyExists,
  KernelErrorCode.FailedPrecondition,
  // The account's storage quota (docs/limits-and-security.md): retrying within seconds would only fail again.
  KernelErrorCode.PayloadTooLarge,
]);
const permanent = (err: unknown) => err instanceof KernelError && PERMANENT.has(err.code);

/**
 * Phase 2 of a commit: read the archive, extract (model or offline), then in one store transaction write
 * the memory files through the write path, mark the archive done with its summary and complete the
 * task. Idempotent: a replayed job finds its task completed and does nothing; memory paths are derived
 * from the archive, so even a re-run writes the same files. See docs/sessions.md "Extraction".
 */
@Injectable()
export class ExtractService {
  private readonly logger = new Logger(ExtractService.name);
  /** MUNINN_SESSION_MEMORY_POLICY, normalised once (an invalid one stops the extractor at start-up). */
  private readonly defaultPolicy: MemoryPolicy | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tasks: SessionTaskRepository,
    private readonly archives: SessionArchiveRepository,
    private readonly nodes: NodeRepository,
    private readonly sessions: SessionRepository,
    private readonly extractor: MemoryExtractor,
    private readonly bus: JobBus,
    private readonly budget: ModelBudget,
    private readonly limits: AccountLimitsService,
    private readonly identities: IdentityRepository,
  ) {
    this.defaultPolicy = serverDefaultMemoryPolicy(config.sessions.defaultMemoryPolicy);
  }

  /**
   * `attemptsMade`: the job's failed attempts before this one. A transient provider failure on an
   * attempt that is not the last fails the attempt ({@link ModelRetryLater}), and the job runs again
   * after `MUNINN_EXTRACT_RETRY_S` doubled per attempt made, resuming after the windows answered.
   */
  async run(job: ExtractJob, finalAttempt: boolean, attemptsMade = 0): Promise<ExtractResult> {
    const status = await this.visibleStatus(job.taskId);
    // No task: the commit's transaction rolled back after the enqueue. Terminal: a replay, or cancelled.
    if (status === null || status === 'completed' || status === 'failed' || status === 'cancelled')
      return { status: 'skipped' };
    if (status === 'cancelling') {
      await this.tasks.finishCancelled(job);
      return { status: 'skipped' };
    }
    const owner = { accountId: job.accountId, userId: job.userId };
    const archive = await this.archives.get(owner, job.sessionId, job.archiveIndex);
    // Another task's archive under this number cannot happen (numbers are never reused, docs/sessions.md
    // "Archive numbers"), but a job must never extract an archive that is not its own.
    if (!archive || archive.taskId !== job.taskId) {
      await this.tasks.fail(job, `Session '${job.sessionId}' no longer exists`);
      return { status: 'failed' };
    }
    try {
      await this.tasks.markRunning(job.accountId, job.taskId);
      const previousOverview = await this.previousOverview(job);
      const identity: Identity = { accountId: job.accountId, userId: job.userId, role: 'user', actorPeerId: null };
      // Session policy → server default → built-in default (there is no user-level settings store).
      const policy = storedMemoryPolicy(job.memoryPolicy) ?? this.defaultPolicy;
      const effective = effectiveExtraction(policy, archive.messages);
      const input = {
        userId: job.userId,
        sessionId: job.sessionId,
        sessionDigest: sessionDigest(job.sessionId),
        archiveIndex: job.archiveIndex,
        messages: archive.messages,
        nowIso: new Date().toISOString(),
        previousOverview,
        eventTags: job.eventTags,
        routing: effective.routing,
      };
      // A task cancelled while its windows are sent stops calling the model (its result is never written).
      // A failed look is no cancellation: the extraction goes on, and the completing transaction decides.
      const cancelled = () =>
        this.tasks.statusOf(job.taskId).then(
          (s) => s !== 'running',
          () => false,
        );
      const run = await this.extractor.extract(input, await this.existingPages(identity, effective.routing), {
        cancelled,
        budget: this.budgetOf(job.accountId),
        progress: {
          load: () => this.tasks.extractProgress(job.taskId),
          save: (p) => this.tasks.saveExtractProgress(job.accountId, job.taskId, p),
        },
        retry: finalAttempt ? undefined : { delayMs: this.config.sessions.extractRetryMs * 2 ** attemptsMade },
        attempt: attemptsMade + 1,
      });
      // The session's memory policy: only its types, routed to self and allowed peers (the extractors route,
      // docs/sessions.md "Peer memories"), none when neither is left; no summary with working memory off.
      const kept = effective.longTerm
        ? run.extraction.memories.filter((m) => effective.memoryTypes.includes(m.memoryType))
        : [];
      const overview = effective.workingMemory ? run.extraction.overview : '';
      const writes = this.writeOps(identity, kept);
      const written = await this.tasks.complete(job, identity, {
        writes,
        overview,
        abstract: effective.workingMemory ? run.extraction.abstract : '',
        overviewTokens: estimateTokens(overview),
        llmUsage: run.usage,
        memoryDiff: effective.longTerm,
        workingMemory: effective.workingMemory,
        result: (w, usage) => this.result(job, run, w, usage, effective),
      });
      if (written?.index)
        await enqueueIndex(this.bus, written.index).catch((err: Error) =>
          this.logger.warn(`index enqueue failed, the outbox relay will retry: ${err.message}`),
        );
      return { status: written ? 'completed' : 'skipped' };
    } catch (err) {
      // A removal of the account's rows: the job is put back, whatever attempt this is (its processor).
      if (err instanceof TenantBusy) throw err;
      // Transient failures (store or queue away, timeouts, a provider's ModelRetryLater) are retried; a
      // refused write never succeeds later.
      if (!finalAttempt && !permanent(err)) throw err;
      await this.tasks.fail(job, (err as Error).message ?? String(err));
      return { status: 'failed' };
    }
  }

  /**
   * `POST /sessions/{id}/extract`: the live messages extracted now, with every default type and self
   * memory whatever the session's policy (as the reference does), nothing archived and no task. The
   * model falls back to the offline extractor as in a commit. See docs/sessions.md "Manual extraction".
   */
  async manual(job: ManualExtractJob): Promise<ManualExtractResult> {
    const identity: Identity = { accountId: job.accountId, userId: job.userId, role: 'user', actorPeerId: null };
    const messages = await this.sessions.liveMessages(identity, job.sessionId);
    if (messages.length === 0) return { contexts: [] };
    const session = await this.sessions.find(identity, job.sessionId);
    if (!session) return { contexts: [] };
    // Routed like a commit under the built-in default policy (self and peer memory on).
    const routing = effectiveExtraction(null, messages).routing;
    const input = {
      userId: job.userId,
      sessionId: job.sessionId,
      sessionDigest: sessionDigest(job.sessionId),
      archiveIndex: 0,
      extractionName: manualExtractionName(session.created_at),
      messages,
      nowIso: new Date().toISOString(),
      previousOverview: await this.archives.latestOverview(identity, job.sessionId),
      eventTags: [],
      routing,
    };
    // One model call: the request waits for it (a commit sends its whole archive, docs/sessions.md).
    const run = await this.extractor.extract(input, await this.existingPages(identity, routing), {
      maxCalls: 1,
      budget: this.budgetOf(job.accountId),
    });
    const writes = this.writeOps(identity, run.extraction.memories);
    const written = await this.archives.writeManualExtraction(identity, job.sessionId, writes);
    if (written.index)
      await enqueueIndex(this.bus, written.index).catch((err: Error) =>
        this.logger.warn(`index enqueue failed, the outbox relay will retry: ${err.message}`),
      );
    return {
      contexts: written.items
        .filter((i) => i.changed)
        .map((i) => ({
          uri: i.uri,
          category: i.created ? ('memory_write' as const) : ('memory_edit' as const),
          context_type: 'memory' as const,
        })),
    };
  }

  /**
   * The account's model budget for one extraction (docs/limits-and-security.md, "Model budget"). A
   * suspended account's acknowledged commits are still extracted, without the model: an operator who
   * suspends a tenant (an unpaid invoice) stops its model spend at the next call, and no committed turn
   * goes without memory ("Suspending an account").
   */
  private budgetOf(accountId: string): ExtractBudget {
    let refusal: string | undefined;
    return {
      reserve: async (estimate) => {
        const suspended = await this.identities.accountSuspension(accountId);
        if (suspended) {
          refusal = `the account is suspended since ${suspended.since}: no model calls`;
          return null;
        }
        refusal = undefined;
        const limit = (await this.limits.of(accountId)).model_tokens_per_day;
        return this.budget.reserve(accountId, limit, estimate, 'extract');
      },
      refusal: () => refusal ?? BUDGET_SPENT_REFUSAL,
    };
  }

  /** The task's status, waiting briefly for the commit's transaction (the job is enqueued inside it). */
  private async visibleStatus(taskId: string) {
    const until = Date.now() + TASK_VISIBLE_MS;
    for (;;) {
      const s = await this.tasks.statusOf(taskId);
      if (s !== null || Date.now() > until) return s;
      await sleep(POLL_MS);
    }
  }

  /**
   * The overview the summary builds on: the predecessor's, once it is finished. A predecessor still
   * pending is waited for a while (summaries stay in order), then passed over — a slow or failed archive
   * never blocks the next one.
   */
  private async previousOverview(job: ExtractJob): Promise<string> {
    const owner = { accountId: job.accountId, userId: job.userId };
    const until = Date.now() + PREDECESSOR_MS;
    for (;;) {
      const prev = job.archiveIndex > 1 ? await this.archives.get(owner, job.sessionId, job.archiveIndex - 1) : null;
      if (!prev || prev.status !== 'pending' || Date.now() > until) return prev?.status === 'done' ? prev.overview : '';
      await sleep(POLL_MS);
    }
  }

  /**
   * Pages the model may edit: the profile and the first entity and preference pages of each space the
   * extraction may write (the user's when self memory is on, the first PEER_SPACES allowed peers').
   */
  private async existingPages(identity: Identity, routing: MemoryRouting): Promise<ExistingPage[]> {
    if (!this.extractor.modelConfigured) return [];
    const spaces = [...(routing.self ? [null] : []), ...routing.peers.slice(0, PEER_SPACES)];
    const pages: ExistingPage[] = [];
    for (const peer of spaces) {
      const root = memoryRoot(identity.userId, peer);
      const limit = peer ? 10 : 20;
      const files = [
        ...(await this.nodes.getMany(identity, [`${root}/profile.md`])),
        ...(await this.nodes.list(identity, `${root}/entities`, { recursive: true, limit })),
        ...(await this.nodes.list(identity, `${root}/preferences`, { recursive: true, limit })),
      ];
      for (const f of files)
        if (f.kind === 'file' && !f.uri.split('/').pop()!.startsWith('.'))
          pages.push({ path: f.uri.slice(root.length + 1), content: f.content, ...(peer ? { peerId: peer } : {}) });
    }
    return pages;
  }

  /**
   * Proposed memories → upserts. Quote files merge with what they hold under the write's row lock (each
   * quote once), so two commits quoting into one file at the same moment both keep their lines.
   */
  private writeOps(identity: Identity, memories: ProposedMemory[]): WriteOp[] {
    const byUri = new Map<string, ProposedMemory>();
    for (const m of memories) {
      const uri = `${memoryRoot(identity.userId, m.peerId)}/${m.path}`;
      const prev = byUri.get(uri);
      byUri.set(
        uri,
        prev && prev.mode === 'merge' && m.mode === 'merge' ? { ...prev, content: `${prev.content}\n${m.content}` } : m,
      );
    }
    return [...byUri.entries()].map(([uri, m]) => {
      const tags = m.tags?.length ? { tags: m.tags } : {};
      if (m.mode !== 'merge') return { uri, mode: 'upsert' as const, content: m.content, ...tags };
      const title = m.title ?? '';
      return {
        uri,
        mode: 'upsert' as const,
        content: mergeQuotes(null, title, m.content),
        merge: (current: string | null) => mergeQuotes(current, title, m.content),
        ...tags,
      };
    });
  }

  private result(
    job: ExtractJob,
    run: ExtractorRun,
    w: WriteManyOutcome,
    usage: UsageConsumed,
    effective: EffectiveExtraction,
  ): Record<string, unknown> {
    const created = w.items.filter((i) => i.created).length;
    const edited = w.items.filter((i) => !i.created && i.changed).length;
    const counts: Record<string, number> = {};
    if (created) counts.memory_write = created;
    if (edited) counts.memory_edit = edited;
    const prompt = run.usage?.prompt_tokens ?? 0;
    const completion = run.usage?.completion_tokens ?? 0;
    return {
      session_id: job.sessionId,
      archive_uri: archiveUri(job.userId, job.sessionId, job.archiveIndex),
      memories_extracted: counts,
      memory_uris: w.items.filter((i) => i.changed).map((i) => i.uri),
      extractor: run.extractor,
      ...(run.fallbackReason ? { extractor_fallback_reason: run.fallbackReason } : {}),
      session_skills_extracted: 0,
      session_skill_uris: [],
      // Usage records of POST …/used consumed by this commit, and the nodes they counted on.
      usage_events_extracted: usage.events,
      active_count_updated: usage.nodes,
      effective_memory_types: effective.memoryTypes,
      agent_evolution_enabled: false,
      agent_memory_skip_reason: 'agent_evolution_disabled',
      ...(effective.longTerm
        ? { memory_diff_uri: `${archiveUri(job.userId, job.sessionId, job.archiveIndex)}/memory_diff.json` }
        : {}),
      token_usage: {
        llm: {
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
          cached_tokens: 0,
          reasoning_tokens: 0,
        },
        embedding: { total_tokens: 0 },
        total: { total_tokens: prompt + completion, cached_tokens: 0, reasoning_tokens: 0 },
      },
    };
  }
}

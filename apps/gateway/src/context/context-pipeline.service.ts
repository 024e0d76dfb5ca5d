import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { AssembleResult } from '@app/contracts';
import {
  assembleBlock,
  planBodies,
  buildContextStats,
  carriedBodies,
  Candidate,
  countOrigins,
  DedupStats,
  deprecatedStats,
  excludedSet,
  ExpansionStatus,
  formatRetrievalError,
  Identity,
  invalidArgument,
  KernelError,
  KernelErrorCode,
  mergeRetrievalResults,
  planRetrievalCalls,
  RewriteStatus,
  RetrievalCall,
  RewriteUsage,
  SeenEntry,
  seenEntries,
} from '@app/kernel';
import { correctedQuery, correctionsOf, explainBlock, explainExcluded } from '@app/kernel';
import { AssembleClient, throwIfClientGone } from '@app/queue';
import { ContextParams } from './context-params';
import { DedupLedgerService, LedgerView } from '../ledger/dedup-ledger.service';
import { RetrievalFanoutService } from './retrieval-fanout.service';
import { RewriteClientService } from './rewrite-client.service';
import { RequestStages } from '../http/request-stages';
import { AdmissionService } from '../http/admission.service';
import { LoadedSession, SessionContextService } from './session-context.service';

/**
 * Conducts one context request (docs/contract.md#pipeline; order documented in libs/contracts/src/queues/pipeline.ts):
 * session → expansion → ledger → find fan-out → assemble → digest → ledger record → stats.
 * Each step is timed into `stages` (docs/architecture.md, "Stage timings").
 */
@Injectable()
export class ContextPipelineService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly assembler: AssembleClient,
    private readonly sessions: SessionContextService,
    private readonly ledger: DedupLedgerService,
    private readonly fanout: RetrievalFanoutService,
    private readonly rewriter: RewriteClientService,
    private readonly admission: AdmissionService,
  ) {}

  async run(caller: Identity, p: ContextParams, stages = new RequestStages()) {
    const deadline = Date.now() + this.config.queues.requestDeadlineMs;
    const expansionOn = p.queryExpansion === 'auto' && this.rewriter.intentEnabled;
    const session =
      p.sessionId && (expansionOn || p.dedupTurns > 0)
        ? await stages.time('session_load', () => this.sessions.load(caller, p.sessionId!, expansionOn))
        : null;

    let expansion: ExpansionStatus = 'off';
    let queries = [p.query];
    if (expansionOn && session)
      ({ status: expansion, queries } = await stages.time('expand', () =>
        this.rewriter.expand(
          caller.accountId,
          p.query,
          session.recentMessages,
          session.latestArchiveOverview,
          deadline,
        ),
      ));

    const ledger =
      session && p.dedupTurns > 0
        ? await stages.time('ledger_read', () =>
            this.ledger.load(caller, session.sessionId, session.clock, p.dedupTurns),
          )
        : null;
    const excluded = excludedSet(p.excludeUris, ledger?.cooled ?? []);
    const calls = planRetrievalCalls({
      identity: caller,
      quotas: p.quotas,
      limit: p.limit,
      peerScope: p.peerScope,
      queries,
      excludedCount: excluded.size,
    });
    if (calls.length > 0 && !p.query.trim()) throw invalidArgument('Search query or image_url must not be empty.');

    // The search and its assembly are the work that grows with the candidates asked for: a large search holds one
    // of its account's large-search slots while they run (docs/limits-and-security.md, "Large searches have a
    // narrower lane").
    const asked = calls.reduce((n, c) => n + c.limit, 0);
    const { outcomes, merged, corrected, assembled, assembleError } = await this.admission.inLargeSearchLane(
      caller,
      asked,
      deadline - Date.now(),
      () => this.gather(caller, p, calls, excluded, ledger, deadline, stages),
    );

    let rewrite: { status: RewriteStatus; digest: string; usage: RewriteUsage | null } = {
      status: 'off',
      digest: '',
      usage: null,
    };
    // Nobody reads the answer of a client that went away: no digest (a model call) for it, and its ledger
    // does not record entries the session was never given (docs/limits-and-security.md, "A client that goes away").
    throwIfClientGone();
    if (assembled.entries.length > 0) {
      const uris = assembled.entries.map((e) => e.uri);
      rewrite = await stages.time('digest', () =>
        this.rewriter.digest(caller.accountId, p.rewrite, p.query, assembled.rendered, uris, p.rewriteMaxBullets),
      );
    }
    throwIfClientGone();
    const dedup = await stages.time('ledger_write', () =>
      this.recordLedger(session, ledger, p, assembled.entries, rewrite.status),
    );
    const stats = buildContextStats({
      searched: merged.searched,
      candidates: merged.candidates.length,
      excluded: merged.excluded,
      origins: countOrigins(merged.candidates),
      peerScope: p.peerScope,
      quotas: p.quotas,
      retrievalErrors: merged.retrievalErrors,
      lexicalOnly: outcomes.filter((o) => 'result' in o && o.result?.lexicalOnly).length,
      assembleError,
      plan: assembled.plan,
      purpose: p.purpose,
      queryExpansion: expansion,
      plannedQueries: queries,
      scoreThreshold: p.scoreThreshold,
      otherPeerPenalties: p.penalties,
      rewrite: rewrite.status,
      rewriteUsage: rewrite.usage,
      dedup,
      ...(p.ignored ? { ignored: p.ignored } : {}),
      ...(p.aliasesUsed ? { deprecated: deprecatedStats(p.aliasesUsed) } : {}),
    });
    const blank = !p.render || rewrite.status === 'no_relevant';
    const rendered = blank ? '' : assembled.rendered;
    const result = { entries: assembled.entries, rendered, digest: rewrite.digest, stats };
    if (!p.explain) return result;
    const cooled = new Set(ledger?.cooled ?? []);
    const hidden = merged.excludedUris.map((uri) => explainExcluded(uri, cooled.has(uri)));
    return { ...result, explain: explainBlock([...(assembled.explain ?? []), ...hidden], corrected) };
  }

  /** The find fan-out, the merge, and the block assembled from the merged candidates. */
  private async gather(
    caller: Identity,
    p: ContextParams,
    calls: RetrievalCall[],
    excluded: ReadonlySet<string>,
    ledger: LedgerView | null,
    deadline: number,
    stages: RequestStages,
  ) {
    const outcomes = await stages.time('find', () =>
      this.fanout.run({
        identity: caller,
        calls,
        filter: p.filter,
        scoreThreshold: p.scoreThreshold,
        deadline,
        stages,
      }),
    );
    const merged = await stages.time('merge', () =>
      mergeRetrievalResults({
        identity: caller,
        quotas: p.quotas,
        limit: p.limit,
        penalties: p.penalties,
        excluded,
        outcomes,
      }),
    );
    // What the session was given in its last turns and these searches found again (docs/context.md, "Across turns").
    const seen = ledger ? seenEntries(merged.excludedCandidates, ledger.cooled, ledger.data) : [];
    const corrected = correctionsOf(outcomes);
    const { block: assembled, error: assembleError } = await stages.time('assemble', () =>
      this.assemble(
        caller,
        merged.candidates,
        seen,
        { ...p, query: correctedQuery(p.query, corrected) },
        deadline,
        stages,
      ),
    );
    return { outcomes, merged, corrected, assembled, assembleError };
  }

  /**
   * The assemble job; if the assembler fails or misses the deadline, the kernel's `assembleBlock` plans the
   * block here from the abstracts and the bodies the search carried (none read: docs/context.md, "Bodies the
   * search carries"), so the caller still gets a bounded answer, as deep as the assembler's for memories whose
   * hit carried their body. The failure is returned beside the block, for its own `AssembleError` line in
   * stats (docs/contract.md#stats).
   */
  private async assemble(
    caller: Identity,
    candidates: Candidate[],
    seen: SeenEntry[],
    p: ContextParams,
    deadline: number,
    stages: RequestStages,
  ): Promise<{ block: AssembleResult; error: string | null }> {
    const job = {
      identity: caller,
      candidates,
      maxTokens: p.maxTokens,
      detail: p.detail,
      query: p.query,
      explain: p.explain === true,
      primary: p.primary,
      ...(seen.length ? { seen } : {}),
    };
    try {
      return {
        block: await stages.job('assemble', () => this.assembler.call(job, deadline - Date.now())),
        error: null,
      };
    } catch (err) {
      if (err instanceof KernelError && err.code === KernelErrorCode.Unavailable) throw err;
      const error = formatRetrievalError({ name: 'AssembleError', message: (err as Error).message });
      return { block: { ...assembleBlock(job, planBodies(job, carriedBodies(job))), bodiesRead: 0 }, error };
    }
  }

  private async recordLedger(
    session: LoadedSession | null,
    ledger: LedgerView | null,
    p: ContextParams,
    entries: { uri: string; detail: string }[],
    rewrite: RewriteStatus,
  ): Promise<DedupStats> {
    if (!session || !ledger) return { turns: p.dedupTurns, status: 'off', cooled: 0, turn: null };
    let status = ledger.status as DedupStats['status'];
    if (entries.length > 0 && rewrite !== 'no_relevant')
      status = await this.ledger.record(ledger, entries, session.clock, p.dedupTurns);
    return { turns: p.dedupTurns, status, cooled: ledger.cooled.length, turn: session.clock };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { AssembleResult } from '@app/contracts';
import {
  buildContextStats,
  Candidate,
  countOrigins,
  DedupStats,
  deprecatedStats,
  entryToJson,
  excludedSet,
  ExpansionStatus,
  formatRetrievalError,
  Identity,
  invalidArgument,
  KernelError,
  KernelErrorCode,
  mergeRetrievalResults,
  normalizeDetail,
  planEntries,
  planRetrievalCalls,
  renderContext,
  RewriteStatus,
  RewriteUsage,
} from '@app/kernel';
import { explainBlock, explainExcluded } from '@app/kernel';
import { AssembleClient } from '@app/queue';
import { ContextParams } from './context-params';
import { DedupLedgerService, LedgerView } from '../ledger/dedup-ledger.service';
import { RetrievalFanoutService } from './retrieval-fanout.service';
import { RewriteClientService } from './rewrite-client.service';
import { LoadedSession, SessionContextService } from './session-context.service';

/**
 * Conducts one context request (docs/contract.md#pipeline; order documented in libs/contracts/src/queues/pipeline.ts):
 * session → expansion → ledger → find fan-out → assemble → digest → ledger record → stats.
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
  ) {}

  async run(caller: Identity, p: ContextParams) {
    const deadline = Date.now() + this.config.queues.requestDeadlineMs;
    const expansionOn = p.queryExpansion === 'auto' && this.rewriter.intentEnabled;
    const session =
      p.sessionId && (expansionOn || p.dedupTurns > 0)
        ? await this.sessions.load(caller, p.sessionId, expansionOn)
        : null;

    let expansion: ExpansionStatus = 'off';
    let queries = [p.query];
    if (expansionOn && session)
      ({ status: expansion, queries } = await this.rewriter.expand(
        p.query,
        session.recentMessages,
        session.latestArchiveOverview,
      ));

    const ledger =
      session && p.dedupTurns > 0
        ? await this.ledger.load(caller, session.sessionId, session.clock, p.dedupTurns)
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
    if (calls.length > 0 && !p.query.trim() && !p.imageUrl)
      throw invalidArgument('Search query or image_url must not be empty.');

    const outcomes = await this.fanout.run({
      identity: caller,
      calls,
      filter: p.filter,
      imageUrl: p.imageUrl,
      scoreThreshold: p.scoreThreshold,
      deadline,
    });
    const merged = mergeRetrievalResults({
      identity: caller,
      quotas: p.quotas,
      limit: p.limit,
      penalties: p.penalties,
      excluded,
      outcomes,
    });
    const assembled = await this.assemble(caller, merged.candidates, p, deadline, merged.retrievalErrors);

    let rewrite: { status: RewriteStatus; digest: string; usage: RewriteUsage | null } = {
      status: 'off',
      digest: '',
      usage: null,
    };
    if (assembled.entries.length > 0) {
      rewrite = await this.rewriter.digest(
        p.rewrite,
        p.query,
        assembled.rendered,
        assembled.entries.map((e) => e.uri),
        p.rewriteMaxBullets,
      );
    }
    const dedup = await this.recordLedger(session, ledger, p, assembled.entries, rewrite.status);
    const stats = buildContextStats({
      searched: merged.searched,
      candidates: merged.candidates.length,
      excluded: merged.excluded,
      origins: countOrigins(merged.candidates),
      peerScope: p.peerScope,
      quotas: p.quotas,
      retrievalErrors: merged.retrievalErrors,
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
    return { ...result, explain: explainBlock([...(assembled.explain ?? []), ...hidden]) };
  }

  /**
   * The assemble job; if the assembler fails or misses the deadline, the block is planned here from
   * the abstracts alone (no bodies), so the caller still gets a bounded answer, with the error in stats.
   */
  private async assemble(
    caller: Identity,
    candidates: Candidate[],
    p: ContextParams,
    deadline: number,
    errors: string[],
  ): Promise<AssembleResult> {
    try {
      const job = {
        identity: caller,
        candidates,
        maxTokens: p.maxTokens,
        detail: p.detail,
        query: p.query,
        explain: p.explain === true,
        primary: p.primary,
      };
      return await this.assembler.call(job, deadline - Date.now());
    } catch (err) {
      if (err instanceof KernelError && err.code === KernelErrorCode.Unavailable) throw err;
      errors.push(formatRetrievalError({ name: 'AssembleError', message: (err as Error).message }));
      const { entries, stats, explain } = planEntries({
        candidates,
        contents: new Map(),
        maxTokens: p.maxTokens,
        pins: normalizeDetail(p.detail),
        query: p.query,
        explain: p.explain === true,
        primary: p.primary,
      });
      const rendered = renderContext(entries);
      const notes = explain ? { explain } : {};
      return { entries: entries.map(entryToJson), rendered, plan: stats, bodiesRead: 0, ...notes };
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

import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  ExpansionStatus,
  KernelError,
  KernelErrorCode,
  modelCallTokens,
  plannedQueries,
  RewriteMode,
  rewriteEnabled,
  RewriteStatus,
  RewriteUsage,
} from '@app/kernel';
import { AccountLimitsService, MessageRecord } from '@app/store';
import {
  CallCircuit,
  DigestClient,
  ExpandClient,
  isClientGone,
  ModelBudget,
  ModelCall,
  ModelSpend,
  WithdrawalReceipt,
} from '@app/queue';

const MESSAGE_CHARS = 2000;
// The planner reads the newest archive overview (docs/sessions.md "Query expansion"), bounded like messages.
const OVERVIEW_CHARS = 8000;

/**
 * Gateway side of the rewriter queue: expansion and digest, each awaited only up to its fuse
 * (docs/contract.md#query-expansion, #digest-rewrite), each behind its circuit (CallCircuit).
 */
@Injectable()
export class RewriteClientService {
  private readonly logger = new Logger(RewriteClientService.name);
  private readonly expandCircuit: CallCircuit;
  private readonly digestCircuit: CallCircuit;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly expander: ExpandClient,
    private readonly digester: DigestClient,
    private readonly budget: ModelBudget,
    private readonly limits: AccountLimitsService,
  ) {
    this.expandCircuit = budget.metrics.newCircuit('expand', 'query expansion', config.llm);
    this.digestCircuit = budget.metrics.newCircuit('digest', 'digest', config.llm);
  }

  /** Whether expansion can run at all: enabled server-side and a planner model configured. */
  get intentEnabled(): boolean {
    return this.config.llm.enableIntent && this.plannerConfigured;
  }

  get plannerConfigured(): boolean {
    return Boolean(this.config.llm.baseUrl && this.config.llm.queryPlannerModel);
  }

  /**
   * The planner's queries for `query`. An account whose model budget for the day is spent makes no call
   * (`failed`, the raw query; docs/limits-and-security.md, "Model budget"); a call reserves its prompt's
   * estimate and is counted at its usage.
   */
  async expand(
    accountId: string,
    query: string,
    messages: MessageRecord[],
    latestArchiveOverview = '',
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<{ status: ExpansionStatus; queries: string[] }> {
    if (messages.length === 0 && !latestArchiveOverview) return { status: 'off', queries: [query] };
    const job = {
      query,
      latestArchiveOverview: latestArchiveOverview.slice(0, OVERVIEW_CHARS),
      recentMessages: messages.slice(-5).map((m) => ({ role: m.role, content: m.content.slice(0, MESSAGE_CHARS) })),
      // At most half of what is left of the request (docs/contract.md, "Query expansion"): the searches and the
      // assembly come after it. Its own fuse alone let a slow planner use the whole deadline, and the request
      // answered an empty block instead of its raw query's. (With the defaults, 5 s of 10 s, the fuse is its own.)
      timeoutMs: Math.max(1, Math.min(this.config.llm.intentTimeoutMs, Math.floor((deadline - Date.now()) / 2))),
    };
    const sent = [job.query, job.latestArchiveOverview, ...job.recentMessages.map((m) => m.content)];
    const spend = await this.reserve(accountId, modelCallTokens(null, sent), 'expand');
    if (!spend) return { status: 'failed', queries: [query] };
    const receipt = new WithdrawalReceipt();
    try {
      const run = await this.expandCircuit.run(accountId, (cut) =>
        this.expander.call(job, job.timeoutMs, { signal: cut, receipt }),
      );
      if (run.skipped) {
        await settleUnanswered(spend, run.skipped, receipt);
        return { status: 'failed', queries: [query] };
      }
      const r = run.value;
      await spend.settle(modelCallTokens(r.usage, [...sent, ...r.queries]));
      return { status: 'used', queries: plannedQueries(query, r.queries) };
    } catch (err) {
      // Nobody reads the answer: no warning either.
      if (isClientGone(err)) await settleUnanswered(spend, 'gone', receipt);
      else {
        await settleFailed(spend, isDeadline(err), receipt);
        this.logger.warn(`query expansion failed: ${(err as Error).message}`);
      }
      return { status: 'failed', queries: [query] };
    }
  }

  /** The digest of the block; with the account's model budget spent, no call (`failed`, the block intact). */
  async digest(
    accountId: string,
    mode: RewriteMode,
    query: string,
    rendered: string,
    validUris: string[],
    maxBullets: number,
  ): Promise<{ status: RewriteStatus; digest: string; usage: RewriteUsage | null }> {
    if (!rewriteEnabled(mode, this.plannerConfigured)) return { status: 'off', digest: '', usage: null };
    if (!this.plannerConfigured) return { status: 'failed', digest: '', usage: null };
    const spend = await this.reserve(accountId, modelCallTokens(null, [query, rendered]), 'digest');
    if (!spend) return { status: 'failed', digest: '', usage: null };
    const timeoutMs = this.config.llm.rewriteTimeoutMs;
    const receipt = new WithdrawalReceipt();
    try {
      const run = await this.digestCircuit.run(
        accountId,
        (cut) =>
          this.digester.call({ query, rendered, validUris, maxBullets, timeoutMs }, timeoutMs, {
            signal: cut,
            receipt,
          }),
        (r) => r.noAnswer === true,
      );
      if (run.skipped) {
        await settleUnanswered(spend, run.skipped, receipt);
        return { status: 'failed', digest: '', usage: null };
      }
      const r = run.value;
      await spend.settle(modelCallTokens(r.usage, [query, rendered, r.digest]), digestOutcome(r.status));
      return { status: r.status, digest: r.status === 'ok' ? r.digest : '', usage: r.usage };
    } catch (err) {
      if (isClientGone(err)) {
        await settleUnanswered(spend, 'gone', receipt);
        return { status: 'failed', digest: '', usage: null };
      }
      const timedOut = isDeadline(err);
      await settleFailed(spend, timedOut, receipt);
      if (!timedOut) this.logger.warn(`digest failed: ${(err as Error).message}`);
      return { status: timedOut ? 'timeout' : 'failed', digest: '', usage: null };
    }
  }

  /** A call's reservation against the account's model budget (its own, or the deployment's). */
  private async reserve(accountId: string, estimate: number, call: ModelCall) {
    return this.budget.reserve(accountId, (await this.limits.of(accountId)).model_tokens_per_day, estimate, call);
  }
}

/**
 * A call that got no answer the caller reads: not made (`open`, its circuit was open; `held`, its account's
 * own calls failed of late), or withdrawn in flight (`cut`, its circuit opened meanwhile; `gone`, the
 * request's client went away). A withdrawn job a rewriter had started may well have sent its prompt, so the
 * reservation stays, as past a fuse; one taken back from the queue before any rewriter took it sent nothing,
 * and gives it back, as a call not made does.
 */
async function settleUnanswered(spend: ModelSpend, why: 'open' | 'held' | 'cut' | 'gone', receipt: WithdrawalReceipt) {
  const sent = (why === 'cut' || why === 'gone') && !(await receipt.neverStarted());
  await spend.settle(sent ? spend.reserved : 0, why);
}

/**
 * A call that failed (see ModelSpend.failed); past its deadline with its job still waiting in the queue (no
 * rewriter free, or none running) it was never made: counted `timeout`, its reservation given back.
 */
async function settleFailed(spend: ModelSpend, timedOut: boolean, receipt: WithdrawalReceipt) {
  if (timedOut && (await receipt.neverStarted())) await spend.settle(0, 'timeout');
  else await spend.failed(timedOut);
}

function digestOutcome(status: RewriteStatus): 'ok' | 'failed' | 'timeout' {
  return status === 'failed' || status === 'timeout' ? status : 'ok';
}

/** A call past its deadline: the rewriter may well have sent the prompt (see ModelSpend.failed). */
function isDeadline(err: unknown): boolean {
  return err instanceof KernelError && err.code === KernelErrorCode.DeadlineExceeded;
}

import { RewriteStatus, RewriteUsage } from '../digest/rewrite-outcome';
import { ExpansionStatus } from '../expansion/planned-queries';
import { PenaltyMap } from '../gathering/penalties';
import { Purpose, QuotaMap } from '../gathering/quotas';
import { capRetrievalErrors } from '../gathering/retrieval-errors';
import { PeerScope } from '../gathering/retrieval-plan';
import { DedupStatus } from '../ledger/recall-ledger';
import { PlanStats } from '../planning/plan-entries';
import { DeprecatedStats } from '../request/recall-fold';
import { Origin } from '../tiering/candidate';
import { DetailStat } from '../tiering/detail-pins';
import { Tier } from '../tiering/tier';

/** `stats.dedup` (docs/contract.md#stats). */
export interface DedupStats {
  turns: number;
  status: DedupStatus;
  cooled: number;
  turn: number | null;
}

/** The pieces a context request has gathered by the time it answers. */
export interface StatsInput {
  searched: Record<string, number>;
  candidates: number;
  excluded: number;
  origins: Record<Origin, number>;
  peerScope: PeerScope;
  quotas: QuotaMap | null;
  /** Formatted retrieval failures, all of them; at most five are reported. */
  retrievalErrors: readonly string[];
  /** The formatted assembler failure, reported after the search failures (never cut by their cap). */
  assembleError?: string | null;
  plan: PlanStats;
  purpose: Purpose | null;
  queryExpansion: ExpansionStatus;
  plannedQueries: readonly string[];
  scoreThreshold: number | null;
  otherPeerPenalties: PenaltyMap;
  rewrite: RewriteStatus;
  rewriteUsage: RewriteUsage | null;
  dedup: DedupStats;
  /** `/search` context only; omitted from the output when empty. */
  ignored?: readonly string[];
  /** `/recall` only. */
  deprecated?: DeprecatedStats;
  /** Retrieval calls answered without the query's vector (docs/limits-and-security.md, "A model that stops answering"). */
  lexicalOnly?: number;
}

/** `result.stats` on the wire (docs/contract.md#stats); property order is the contract's emission order. */
export interface ContextStats {
  searched: Record<string, number>;
  candidates: number;
  excluded: number;
  origins: Record<Origin, number>;
  peer_scope: PeerScope;
  quotas: QuotaMap | null;
  retrieval_errors?: string[];
  max_tokens: number;
  used_tokens: number;
  per_entry_cap: number;
  returned: number;
  dropped: number;
  deduped: number;
  detail: DetailStat;
  tier_counts: Partial<Record<Tier, number>>;
  fill: { floor_tokens: number; overview_upgrades: number; full_upgrades: number; spare_upgrades: number };
  purpose: Purpose | null;
  query_expansion: ExpansionStatus;
  planned_queries: string[];
  score_threshold: number | null;
  other_peer_penalties: PenaltyMap;
  rewrite: RewriteStatus;
  rewrite_usage: RewriteUsage | null;
  dedup: DedupStats;
  ignored?: string[];
  deprecated?: DeprecatedStats;
  /** Muninn's own, after the contract's keys: entries withdrawn as redundant (docs/context.md, "Redundancy"). */
  redundant: number;
  /** Muninn's own: candidates not planned, scoring under a share of the best (docs/context.md, "Weak candidates"). */
  weak: number;
  /**
   * Muninn's own: retrieval calls searched without the query's vector, its embedding failed, late or not
   * asked (docs/limits-and-security.md, "A model that stops answering"); 0 normally.
   */
  lexical_only: number;
}

/** Assemble `stats` with every key in docs/contract.md#stats order, so `JSON.stringify` emits the contract's order. */
export function buildContextStats(input: StatsInput): ContextStats {
  const { plan } = input;
  const errors = capRetrievalErrors(input.retrievalErrors, input.assembleError ?? null);
  const stats: ContextStats = {
    searched: { ...input.searched },
    candidates: input.candidates,
    excluded: input.excluded,
    origins: { ...input.origins },
    peer_scope: input.peerScope,
    quotas: input.quotas ? { ...input.quotas } : null,
    ...(errors ? { retrieval_errors: errors } : {}),
    max_tokens: plan.maxTokens,
    used_tokens: plan.usedTokens,
    per_entry_cap: plan.perEntryCap,
    returned: plan.returned,
    dropped: plan.dropped,
    deduped: plan.deduped,
    detail: plan.detail,
    tier_counts: { ...plan.tierCounts },
    fill: {
      floor_tokens: plan.fill.floorTokens,
      overview_upgrades: plan.fill.overviewUpgrades,
      full_upgrades: plan.fill.fullUpgrades,
      spare_upgrades: plan.fill.spareUpgrades,
    },
    purpose: input.purpose,
    query_expansion: input.queryExpansion,
    planned_queries: [...input.plannedQueries],
    score_threshold: input.scoreThreshold,
    other_peer_penalties: { ...input.otherPeerPenalties },
    rewrite: input.rewrite,
    rewrite_usage: input.rewriteUsage,
    dedup: { turns: input.dedup.turns, status: input.dedup.status, cooled: input.dedup.cooled, turn: input.dedup.turn },
  } as ContextStats;
  if (input.ignored && input.ignored.length) stats.ignored = [...input.ignored];
  if (input.deprecated) stats.deprecated = input.deprecated;
  // Assigned last so it is emitted after every contract key, whichever optional ones are present.
  stats.redundant = plan.redundant ?? 0;
  stats.weak = plan.weak ?? 0;
  stats.lexical_only = input.lexicalOnly ?? 0;
  return stats;
}

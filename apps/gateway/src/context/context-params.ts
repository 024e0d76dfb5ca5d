import type { FilterNode, PenaltyMap, Purpose, QuotaMap, RewriteMode, V1Alias } from '@app/kernel';

/** A context request after validation and folding: what the pipeline runs on (docs/contract.md#pipeline). */
export interface ContextParams {
  query: string;
  sessionId: string | null;
  /** Flat-mode candidate ceiling (`node_limit ?? limit`, or the budget-scaled default). */
  limit: number;
  /** With the budget-scaled default limit: candidates past the contract's 10 are a reserve (docs/context.md). */
  primary?: number;
  scoreThreshold: number | null;
  filter: FilterNode | null;
  quotas: QuotaMap | null;
  purpose: Purpose | null;
  /** Raw `detail`; the kernel resolves pins (null/auto = category defaults). */
  detail: unknown;
  maxTokens: number;
  dedupTurns: number;
  excludeUris: string[];
  peerScope: 'actor' | 'all';
  penalties: PenaltyMap;
  rewrite: RewriteMode;
  rewriteMaxBullets: number;
  queryExpansion: 'off' | 'auto';
  /** `/recall render:false` → `rendered` is "". */
  render: boolean;
  telemetry: boolean;
  /** `/search` context: add `result.explain` (docs/context.md, "Explain"). */
  explain?: boolean;
  /** `/search` context: inert fields reported in `stats.ignored`. */
  ignored?: string[];
  /** `/recall`: v1 aliases the body used (docs/contract.md#deprecation-signals). */
  aliasesUsed?: V1Alias[];
}

import type { FilterNode, Identity, StageTimings, WordCorrection } from '@app/kernel';

/**
 * Payload of a `find` job: one retrieval call of docs/contract.md#find with everything already resolved by the
 * gateway (canonical targets, folded filter). `identity` is the read context: the caller's, or the
 * open context (no actor) for other-peer scans.
 */
export interface FindJob {
  identity: Identity;
  query: string;
  /** Directories to search (prefixes); [] means no restriction (root callers only). */
  targets: string[];
  filter: FilterNode | null;
  /** L0/L1/L2 restriction, or null for all. */
  levels: number[] | null;
  limit: number;
  /** Keep hits scoring strictly above this; null → 0. */
  scoreThreshold: number | null;
  /**
   * Context requests only: characters of abstracts this call's hits carry in all, best-scored first; past them a
   * hit's abstract is cut (`cutHitAbstracts`) and it no longer carries its body (docs/limits-and-security.md,
   * "Work per byte"). Absent: every abstract whole, as /find answers.
   */
  abstractChars?: number;
}

/** One hit: the wire shape of a /find item (docs/contract.md#find-response) and one internal key. */
export interface FindHit {
  context_type: 'memory' | 'resource' | 'skill';
  uri: string;
  level: number;
  score: number;
  abstract: string;
  tags: string[];
  /**
   * The abstract is the body behind the node's deeper tiers: a directory's overview, a memory file's whole
   * current body (docs/context.md, "Bodies the search carries"). The context request's assembly does not read it
   * again. Set only when true; /find answers leave it out.
   */
  wholeBody?: true;
}

/** Result of a `find` job: the /find `result` object (docs/contract.md#find-response). */
export interface FindResult {
  memories: FindHit[];
  resources: FindHit[];
  skills: FindHit[];
  total: number;
  /**
   * The worker's own stage times (queue wait, embed, term weights, SQL, scoring; docs/architecture.md,
   * "Stage timings"). The gateway records and removes them: they never reach a /find answer.
   */
  stages?: StageTimings;
  /**
   * The query had text but was searched without its vector: its embedding failed, was late, or its
   * circuit was open (docs/limits-and-security.md, "A model that stops answering"). Context requests
   * count such calls in `stats.lexical_only`; /find answers leave it out.
   */
  lexicalOnly?: boolean;
  /**
   * Query words no memory of the view holds, read as their one-edit variant (docs/context.md, "Misspelt
   * query words"). Context requests focus excerpts on the variants and list them in `explain`; /find
   * answers leave it out (the contract's result has no such key).
   */
  corrected?: WordCorrection[];
}

/**
 * Payload of a `find` job carrying every call of one context request (docs/architecture.md,
 * "Performance"): one job instead of one per call, so a request pays one queue round trip, one query
 * embedding per distinct query and one term-statistics read.
 */
export interface FindBatchJob {
  calls: FindJob[];
}

/** Most calls in one {@link FindBatchJob}: above any plan the gateway makes (buckets × queries × scopes). */
export const MAX_FIND_BATCH = 256;

/** One call's answer in a batch: its result, or its own coded failure (libs/contracts job-failure). */
export type FindCallOutcome = { result: FindResult } | { error: string };

/** Result of a {@link FindBatchJob}: one outcome per call, in order. */
export interface FindBatchResult {
  outcomes: FindCallOutcome[];
  /** The job's stage times, summed over its calls; the gateway records and removes them. */
  stages?: StageTimings;
}

/** Whether a `find` payload is a batch (else a single {@link FindJob}). */
export function isFindBatch(data: FindJob | FindBatchJob): data is FindBatchJob {
  return Array.isArray((data as FindBatchJob).calls);
}

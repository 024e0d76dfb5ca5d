import type { Candidate, EntryJson, ExplainEntry, Identity, PlanStats, SeenEntry, StageTimings } from '@app/kernel';

/** Payload of an `assemble` job: ranked candidates to read, budget and render (docs/contract.md#tiers-and-budget). */
export interface AssembleJob {
  /** The caller's read context; other-peer bodies are read with it minus the actor view. */
  identity: Identity;
  /** Candidates in rank order (merged and sorted by the gateway). */
  candidates: Candidate[];
  maxTokens: number;
  /** The request's raw `detail` (scalar, per-category map or null); resolved by the kernel. */
  detail: unknown;
  /** The original query: memory overviews are excerpted around it (docs/context.md, "Excerpts"). */
  query?: string;
  /** Candidates beyond this many are a reserve, placed with leftover budget only (unset: none). */
  primary?: number;
  /** Return a note per candidate (docs/context.md, "Explain"). */
  explain?: boolean;
  /** Hits the session's ledger cooled, with the tier served then (at most MAX_SEEN; docs/context.md, "Across turns"). */
  seen?: SeenEntry[];
}

/** Result of an `assemble` job. `rendered` is always produced; the gateway blanks it when asked. */
export interface AssembleResult {
  entries: EntryJson[];
  rendered: string;
  plan: PlanStats;
  /** Bodies read from the store for this request (the read policy's cost). */
  bodiesRead: number;
  /** Only when the job asked for it. */
  explain?: ExplainEntry[];
  /** The worker's stage times (queue wait, body reads, planning, rendering); the gateway records and removes them. */
  stages?: StageTimings;
}

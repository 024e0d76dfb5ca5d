/** Token usage of exactly one model call (never a delta of a shared counter). */
export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * Payload of an `expand` job (docs/contract.md#query-expansion): the planner sees the latest overview, the last
 * messages and the query.
 */
export interface ExpandJob {
  query: string;
  latestArchiveOverview: string;
  /** At most the last 5 messages, oldest first, each cut to a bounded length by the gateway. */
  recentMessages: { role: string; content: string }[];
  /** Milliseconds the gateway will wait; the worker uses it as its own call timeout too. */
  timeoutMs: number;
}

/**
 * Result of an `expand` job: the planner's extra queries (raw, before docs/contract.md#query-expansion de-duplication).
 */
export interface ExpandResult {
  queries: string[];
  usage: LlmUsage | null;
}

/** Payload of a `digest` job (docs/contract.md#digest-rewrite). */
export interface DigestJob {
  query: string;
  rendered: string;
  /** The served entry URIs; a bullet citing anything else is dropped. */
  validUris: string[];
  maxBullets: number;
  timeoutMs: number;
}

/** Result of a `digest` job. `timeout` is decided by the gateway's fuse, never reported here. */
export interface DigestResult {
  status: 'ok' | 'no_relevant' | 'failed';
  digest: string;
  usage: LlmUsage | null;
  /** Why it failed, for logs (never shown to callers). */
  error?: string;
  /**
   * The model gave no answer (a failed or late call), as opposed to an answer without a usable bullet:
   * what the gateway's digest circuit counts (docs/limits-and-security.md, "A model that stops answering").
   */
  noAnswer?: boolean;
}

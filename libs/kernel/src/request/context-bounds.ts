/**
 * Defaults and bounds of the search-request fields (docs/contract.md#context-only-fields): the gateway's field table
 * (validation, OpenAPI, MCP tool schemas) and the folding code read them from here.
 */
export const CONTEXT_DEFAULTS = {
  limit: 10,
  maxTokens: 1600,
  dedupTurns: 0,
  rewriteMaxBullets: 6,
  queryExpansion: 'auto',
  peerScope: 'all',
} as const;

/** Inclusive numeric bounds; violations are 400 INVALID_ARGUMENT (docs/contract.md#context-only-fields). */
export const CONTEXT_BOUNDS = {
  limit: { min: 1, max: 1000 },
  maxTokens: { min: 64, max: 32000 },
  dedupTurns: { min: 0, max: 100 },
  rewriteMaxBullets: { min: 1, max: 20 },
  excludeUris: { maxItems: 200 },
  /**
   * `/recall`'s v1 `max_chars` (4 characters a token): at most the budget `max_tokens` may ask for. The reference
   * takes any integer; a `max_chars` of 10^9 asked for a 250-million-token block, and one such `/recall` held
   * the assembler's event loop 7.7 s planning it (docs/limits-and-security.md, "Work per byte").
   */
  maxChars: { max: 4 * 32000 },
} as const;

/** The candidate ceiling of flat mode: `node_limit` when set, else `limit` (docs/contract.md#find-request). */
export function effectiveLimit(limit: number | null | undefined, nodeLimit: number | null | undefined): number {
  return nodeLimit ?? limit ?? CONTEXT_DEFAULTS.limit;
}

/** Tokens of budget per default flat-mode candidate (docs/context.md, "Small budgets"). */
export const TOKENS_PER_DEFAULT_CANDIDATE = 40;

/**
 * Flat-mode candidate ceiling of a context request that sent neither `limit` nor `node_limit`: the
 * contract's 10, raised with the budget (one candidate per 40 tokens: 20 at 800, 40 at 1600, 80 at 3200),
 * so a block of small memories fills its budget instead of stopping short of it: a one-line fact costs
 * about 40 tokens as an entry, so fewer candidates than that left a block of facts 12% short (measured on
 * bench:locomo, docs/context.md "Default candidate count"). An explicit limit wins.
 */
export function defaultContextLimit(maxTokens: number): number {
  return Math.max(CONTEXT_DEFAULTS.limit, Math.floor(maxTokens / TOKENS_PER_DEFAULT_CANDIDATE));
}

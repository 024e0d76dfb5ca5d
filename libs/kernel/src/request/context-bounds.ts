/** Defaults and bounds of the context-request fields (§3.1), for DTOs and the folding code. */
export const CONTEXT_DEFAULTS = {
  limit: 10,
  maxTokens: 1600,
  dedupTurns: 0,
  rewriteMaxBullets: 6,
  queryExpansion: 'auto',
  peerScope: 'all',
} as const;

/** Inclusive numeric bounds; violations are 400 INVALID_ARGUMENT (case 7). */
export const CONTEXT_BOUNDS = {
  maxTokens: { min: 64, max: 32000 },
  dedupTurns: { min: 0, max: 100 },
  rewriteMaxBullets: { min: 1, max: 20 },
  excludeUris: { maxItems: 200 },
} as const;

/** The candidate ceiling of flat mode: `node_limit` when set, else `limit` (§2.1). */
export function effectiveLimit(limit: number | null | undefined, nodeLimit: number | null | undefined): number {
  return nodeLimit ?? limit ?? CONTEXT_DEFAULTS.limit;
}

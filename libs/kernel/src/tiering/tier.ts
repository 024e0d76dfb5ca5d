/**
 * Detail tiers, cheapest first (docs/contract.md#tier-table): a bare URI, the stored abstract, an extracted overview,
 * the body.
 */
export type Tier = 'uri' | 'abstract' | 'overview' | 'full';
/** Tiers a caller may pin through `detail`. */
export type PinnableTier = Exclude<Tier, 'uri'>;

export const TIER_ORDER: readonly Tier[] = ['uri', 'abstract', 'overview', 'full'];
export const PINNABLE_TIERS: readonly PinnableTier[] = ['abstract', 'overview', 'full'];

/** Position of a tier on the ladder (`uri` = 0 … `full` = 3). */
export function tierRank(tier: Tier): number {
  return TIER_ORDER.indexOf(tier);
}

/** True for `abstract`, `overview` and `full`. */
export function isPinnableTier(value: unknown): value is PinnableTier {
  return typeof value === 'string' && (PINNABLE_TIERS as readonly string[]).includes(value);
}

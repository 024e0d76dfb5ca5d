import { isPlainObject, pyFloat } from '../text/py-coerce';
import { Category, CATEGORY_KEYS, isCategory } from '../tiering/category';

/** Other-peer ranking penalty per reported category (all seven keys). */
export type PenaltyMap = Record<Category, number>;

/** Defaults (docs/contract.md#categories-and-penalties): events/entities/memories 0.1, the rest 0.02. */
export const DEFAULT_OTHER_PEER_PENALTIES: Readonly<PenaltyMap> = {
  events: 0.1,
  entities: 0.1,
  preferences: 0.02,
  experiences: 0.02,
  resources: 0.02,
  skills: 0.02,
  memories: 0.1,
};

function clamp(value: unknown, fallback: number): number {
  const parsed = pyFloat(value);
  const penalty = parsed === null ? fallback : parsed;
  // Python's min(1, max(0, nan)) is 0.0.
  if (Number.isNaN(penalty)) return 0;
  return Math.min(1, Math.max(0, penalty));
}

/**
 * Normalise `other_peer_penalty` (docs/contract.md#categories-and-penalties): null → defaults; a number sets all seven;
 * an object
 * overrides known keys only (unparsable → the default); everything clamped to [0, 1].
 */
export function normalizePenalties(value: unknown): PenaltyMap {
  if (value === null || value === undefined) return { ...DEFAULT_OTHER_PEER_PENALTIES };
  if (isPlainObject(value)) {
    const merged: PenaltyMap = { ...DEFAULT_OTHER_PEER_PENALTIES };
    for (const [key, penalty] of Object.entries(value)) {
      if (isCategory(key)) merged[key] = clamp(penalty, merged[key]);
    }
    return merged;
  }
  const penalty = clamp(value, 0);
  return Object.fromEntries(CATEGORY_KEYS.map((key) => [key, penalty])) as PenaltyMap;
}

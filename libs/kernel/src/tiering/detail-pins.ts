import { isPlainObject } from '../text/py-coerce';
import { Category, isCategory } from './category';
import { isPinnableTier, PinnableTier } from './tier';

/** Resolved `detail`: a per-category map, or one tier for every category, or nothing. */
export interface DetailPins {
  scalar: PinnableTier | null;
  byCategory: Readonly<Partial<Record<Category, PinnableTier>>>;
}

/** The `stats.detail` value: the map if one was given, else the scalar tier, else null. */
export type DetailStat = PinnableTier | Partial<Record<Category, PinnableTier>> | null;

export const NO_PINS: DetailPins = { scalar: null, byCategory: {} };

/**
 * Lenient `detail` resolution (docs/contract.md#tier-table): unknown tiers and keys are dropped, `"auto"` means none.
 */
export function normalizeDetail(value: unknown): DetailPins {
  if (isPlainObject(value)) {
    const byCategory: Partial<Record<Category, PinnableTier>> = {};
    for (const [key, tier] of Object.entries(value)) {
      if (isCategory(key) && isPinnableTier(tier)) byCategory[key] = tier;
    }
    return { scalar: null, byCategory };
  }
  return { scalar: isPinnableTier(value) ? value : null, byCategory: {} };
}

/** The pinned tier for `category`, or null to use its default. */
export function pinFor(pins: DetailPins, category: Category): PinnableTier | null {
  return pins.byCategory[category] ?? pins.scalar;
}

/** Echo of the effective pin for `stats.detail`. */
export function detailStat(pins: DetailPins): DetailStat {
  return Object.keys(pins.byCategory).length > 0 ? { ...pins.byCategory } : pins.scalar;
}

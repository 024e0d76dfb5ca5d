import { pyInt, isPlainObject } from '../text/py-coerce';
import { BucketKey, isBucketKey } from '../tiering/category';

/** Resolved per-bucket ceilings, in the order the caller gave them. */
export type QuotaMap = Partial<Record<BucketKey, number>>;
export type Purpose = 'chat' | 'coding';

/** Purpose presets (docs/contract.md#quotas): absolute per-bucket ceilings, ten candidates in total. */
export const PURPOSE_PRESETS: Readonly<Record<Purpose, Readonly<Record<BucketKey, number>>>> = {
  coding: { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 3, skills: 2 },
  chat: { events: 3, entities: 3, preferences: 1, experiences: 1, resources: 1, skills: 1 },
};

/** `/recall`'s v1 bucket defaults (docs/contract.md#folding), overlaid by a caller's partial map. */
export const RECALL_DEFAULT_QUOTAS: Readonly<QuotaMap> = { events: 10, entities: 10, preferences: 3, experiences: 0 };

/**
 * Resolve quotas (docs/contract.md#quotas): a given map (even `{}`) keeps only bucket keys, each `max(0, int(v))`
 * (non-numeric → 0), and ignores purpose; else the purpose preset; else null (flat mode).
 */
export function resolveQuotas(quotas: unknown, purpose: Purpose | null | undefined): QuotaMap | null {
  if (quotas === null || quotas === undefined) {
    return purpose && PURPOSE_PRESETS[purpose] ? { ...PURPOSE_PRESETS[purpose] } : null;
  }
  const resolved: QuotaMap = {};
  if (!isPlainObject(quotas)) return resolved;
  for (const [key, value] of Object.entries(quotas)) {
    if (isBucketKey(key)) resolved[key] = Math.max(0, pyInt(value) ?? 0);
  }
  return resolved;
}

/** Buckets that will be searched: quota > 0, in quota-map order. */
export function activeBuckets(quotas: QuotaMap): Array<[BucketKey, number]> {
  return (Object.entries(quotas) as Array<[BucketKey, number]>).filter(([, quota]) => quota > 0);
}

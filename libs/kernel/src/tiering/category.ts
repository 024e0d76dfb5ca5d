/** The four memory categories that own a quota bucket. */
export const MEMORY_CATEGORIES = ['events', 'entities', 'preferences', 'experiences'] as const;
/** Quota bucket keys, in the order the contract lists them. */
export const BUCKET_KEYS = [...MEMORY_CATEGORIES, 'resources', 'skills'] as const;
/** Every category an entry may be reported as: the buckets plus the `memories` catch-all. */
export const CATEGORY_KEYS = [...BUCKET_KEYS, 'memories'] as const;

export type BucketKey = (typeof BUCKET_KEYS)[number];
export type Category = (typeof CATEGORY_KEYS)[number];

/** True for a quota bucket key. */
export function isBucketKey(value: unknown): value is BucketKey {
  return typeof value === 'string' && (BUCKET_KEYS as readonly string[]).includes(value);
}

/** True for any reported category, including `memories`. */
export function isCategory(value: unknown): value is Category {
  return typeof value === 'string' && (CATEGORY_KEYS as readonly string[]).includes(value);
}

/** True for the categories whose stored abstract is the whole memory body (the four + `memories`). */
export function isFullBodyAbstractCategory(category: Category): boolean {
  return category !== 'resources' && category !== 'skills';
}

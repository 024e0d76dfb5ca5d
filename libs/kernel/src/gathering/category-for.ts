import { BucketKey, Category, isCategory, MEMORY_CATEGORIES } from '../tiering/category';

const MEMORY_MARKER = '/memories/';

/**
 * Reported category of a hit (§7.5): the owning bucket or result list wins; otherwise derived
 * from the URI, with `memories` as the catch-all for memory types that own no bucket.
 */
export function categoryFor(uri: string, bucket: BucketKey | null, declared?: unknown): Category {
  if (bucket) return bucket;
  const marker = uri.indexOf(MEMORY_MARKER);
  if (marker >= 0) {
    const segment = uri.slice(marker + MEMORY_MARKER.length).split('/')[0]!;
    return (MEMORY_CATEGORIES as readonly string[]).includes(segment) ? (segment as Category) : 'memories';
  }
  if (isCategory(declared)) return declared;
  if (uri.includes('/skills/')) return 'skills';
  if (uri.includes('/resources/') || uri.startsWith('viking://resources')) return 'resources';
  return 'memories';
}

import { BucketKey, Category, isCategory, MEMORY_CATEGORIES } from '../tiering/category';

const MEMORY_MARKER = '/memories/';

/**
 * Reported category of a hit (docs/contract.md#categories-and-penalties): the owning bucket or result list wins;
 * otherwise derived
 * from the URI, with `memories` as the catch-all for memory types that own no bucket.
 */
export function categoryFor(uri: string, bucket: BucketKey | null, declared?: unknown): Category {
  // A root found through the resources or skills list/bucket is neither (its row's type says resource).
  if ((bucket === null || bucket === 'resources' || bucket === 'skills') && isSpaceRoot(uri)) return 'memories';
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

// `viking://`, `viking://user`, `viking://user/{u}` and `viking://agent`, sidecar suffix or not.
const SPACE_ROOT = /^viking:\/\/(?:(?:user(?:\/[^/]+)?|agent)\/?)?(?:\/?\.(?:abstract|overview)\.md)?$/;

/**
 * Whether a URI is a user's or the account's root directory. Its index row carries the resource
 * context type, yet it holds memories, resources and skills alike: labelling it `resources` misled
 * (docs/context.md, "Categories of roots"), so it takes the catch-all `memories`.
 */
export function isSpaceRoot(uri: string): boolean {
  return uri.length <= 300 && SPACE_ROOT.test(uri);
}

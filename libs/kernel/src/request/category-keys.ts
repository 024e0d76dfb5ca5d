import { invalidArgument } from '../kernel.error';
import { isPlainObject } from '../text/py-coerce';
import { BUCKET_KEYS, CATEGORY_KEYS } from '../tiering/category';
import { isPinnableTier } from '../tiering/tier';
import { CONTEXT_BOUNDS } from './context-bounds';

/** The largest quota of one bucket (`limit`'s own bound). */
const MAX_QUOTA = CONTEXT_BOUNDS.limit.max;

function rejectUnknownKeys(value: unknown, label: string, allowed: readonly string[]): void {
  if (!isPlainObject(value)) return;
  const unknown = [...new Set(Object.keys(value).filter((key) => !allowed.includes(key)))].sort();
  if (unknown.length) {
    throw invalidArgument(`unknown ${label} keys: ${unknown.join(', ')}; allowed: ${allowed.join(', ')}`);
  }
}

/**
 * `quotas` (docs/contract.md#context-only-fields): an object of integers (`"3"` allowed, `2.5` not) over the six bucket
 * keys, each at most 1000.
 */
export function validateQuotasField(quotas: unknown): void {
  if (quotas === null || quotas === undefined) return;
  if (!isPlainObject(quotas)) throw invalidArgument('quotas must be an object of integers');
  for (const [key, value] of Object.entries(quotas)) {
    const integral =
      (typeof value === 'number' && Number.isInteger(value)) ||
      (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value));
    if (!integral) throw invalidArgument(`quotas.${key}: Input should be a valid integer`);
    // As many candidates as a request's `limit` may ask for: each quota is kept of the union of every search of
    // the request (up to nine), so 10^9 asked for nine thousand per bucket, and 310 digits read as Infinity.
    if (Number(value) > MAX_QUOTA) {
      throw invalidArgument(`quotas.${key}: Input should be less than or equal to ${MAX_QUOTA}`, {
        field: `quotas.${key}`,
      });
    }
  }
  rejectUnknownKeys(quotas, 'quota', BUCKET_KEYS);
}

/**
 * `detail` (docs/contract.md#context-only-fields): `auto|abstract|overview|full`, or a category →
 * `abstract|overview|full` map.
 */
export function validateDetailField(detail: unknown): void {
  if (detail === null || detail === undefined) return;
  if (typeof detail === 'string') {
    if (detail !== 'auto' && !isPinnableTier(detail)) {
      throw invalidArgument("detail must be one of 'auto', 'abstract', 'overview', 'full' or a per-category object");
    }
    return;
  }
  if (!isPlainObject(detail)) {
    throw invalidArgument("detail must be one of 'auto', 'abstract', 'overview', 'full' or a per-category object");
  }
  for (const [key, tier] of Object.entries(detail)) {
    if (!isPinnableTier(tier)) throw invalidArgument(`detail.${key}: Input should be 'abstract', 'overview' or 'full'`);
  }
  rejectUnknownKeys(detail, 'detail', CATEGORY_KEYS);
}

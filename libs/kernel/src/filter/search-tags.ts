import { invalidArgument } from '../kernel.error';
import { FilterNode } from './filter-node';

function normalizeTag(tag: unknown): string {
  const value = String(tag).trim().toLowerCase();
  if (!value) throw invalidArgument('search tag must be a non-empty k=v string');
  const pieces = value.split('=');
  if (pieces.length !== 2) throw invalidArgument(`invalid search tag '${String(tag)}': expected strict k=v format`);
  if (!pieces[0] || !pieces[1]) {
    throw invalidArgument(`invalid search tag '${String(tag)}': key and value must both be non-empty`);
  }
  return value;
}

/**
 * Normalize strict `k=v` tags (docs/contract.md#find-request): lower-cased, one value per key (last wins, first
 * position kept).
 */
export function normalizeSearchTags(tags: unknown): string[] {
  if (tags === null || tags === undefined) return [];
  if (!Array.isArray(tags)) throw invalidArgument('tags must be a list of k=v strings');
  const byKey = new Map<string, string>();
  for (const item of tags) {
    if (item === null || item === undefined) continue;
    const [key, value] = normalizeTag(item).split('=') as [string, string];
    byKey.set(key, value);
  }
  return [...byKey].map(([key, value]) => `${key}=${value}`);
}

/**
 * Whether a tag written with a file is a `k=v` pair worth keeping (docs/contract.md#content-write): one `=`,
 * a key without whitespace, a value with a non-space character. `spacedEquals` lets whitespace stand
 * around the `=` (set_tags). Split, not a pattern: a value's run of spaces made the pattern quadratic.
 */
export function isTagPair(tag: string, spacedEquals = false): boolean {
  const parts = tag.trim().split('=');
  if (parts.length !== 2) return false;
  const key = spacedEquals ? parts[0]!.trimEnd() : parts[0]!;
  return key !== '' && !/\s/.test(key) && parts[1]!.trim() !== '';
}

/** One `must search_tags` leaf per tag, AND-ed; null when there are no tags. */
export function buildTagsFilter(tags: unknown): FilterNode | null {
  const leaves: FilterNode[] = normalizeSearchTags(tags).map((tag) => ({
    op: 'must',
    field: 'search_tags',
    conds: [tag],
  }));
  if (leaves.length === 0) return null;
  return leaves.length === 1 ? leaves[0]! : { op: 'and', conds: leaves };
}

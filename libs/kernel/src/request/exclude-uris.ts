import { canonicalizeUri } from '../uri/viking-uri';

/** At most this many `exclude_uris` are honoured (docs/contract.md#constants). */
export const MAX_EXCLUDE_URIS = 200;

/**
 * Canonicalise `exclude_uris` at the request boundary (docs/contract.md#context-only-fields); an invalid one throws
 * INVALID_URI.
 */
export function canonicalizeExcludeUris(uris: readonly string[], userId: string): string[] {
  return uris.map((uri) => canonicalizeUri(uri, userId));
}

/**
 * The excluded set (docs/contract.md#pipeline step 6): the first 200 exclusions, trimmed, blanks dropped, ∪ cooled
 * URIs.
 */
export function excludedSet(excludeUris: readonly string[], cooled: Iterable<string> = []): Set<string> {
  const set = new Set<string>();
  for (const uri of excludeUris.slice(0, MAX_EXCLUDE_URIS)) {
    const trimmed = String(uri).trim();
    if (trimmed) set.add(trimmed);
  }
  for (const uri of cooled) set.add(uri);
  return set;
}

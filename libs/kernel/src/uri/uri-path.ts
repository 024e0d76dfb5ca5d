import { trimEndChar } from '../text/trim';

export const VIKING_ROOT = 'viking://';

const SIDECAR_NAMES = ['.abstract.md', '.overview.md'] as const;

/** Path segments after `viking://` (trailing slashes ignored); [] for the root. */
export function uriSegments(uri: string): string[] {
  const path = uri.startsWith(VIKING_ROOT) ? uri.slice(VIKING_ROOT.length) : uri;
  const trimmed = trimEndChar(path, '/');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** `viking://user/{userId}`: the caller's canonical user root. */
export function userRoot(userId: string): string {
  return `${VIKING_ROOT}user/${userId}`;
}

/** Parent of a canonical URI; `viking://` for a scope root, null for `viking://` itself. */
export function parentUri(uri: string): string | null {
  const segments = uriSegments(uri);
  if (segments.length === 0) return null;
  return VIKING_ROOT + segments.slice(0, -1).join('/');
}

/** Last path segment of a URI, or "" for the root. */
export function baseName(uri: string): string {
  const segments = uriSegments(uri);
  return segments.length ? segments[segments.length - 1]! : '';
}

/** Segment-aware prefix test: `viking://a/b` is under `viking://a` but `viking://ab` is not. */
export function isUnder(uri: string, prefix: string): boolean {
  if (!uri.startsWith(VIKING_ROOT) || !prefix.startsWith(VIKING_ROOT)) return false;
  const target = uriSegments(uri);
  const root = uriSegments(prefix);
  if (root.length > target.length) return false;
  return root.every((segment, index) => target[index] === segment);
}

/**
 * Split a directory sidecar hit (docs/contract.md#candidates-from-hits): `…/dir/.abstract.md` → `{ baseUri: …/dir,
 * isDirectory: true }`.
 */
export function stripSidecarSuffix(uri: string): { baseUri: string; isDirectory: boolean } {
  const trimmed = trimEndChar(uri, '/');
  for (const name of SIDECAR_NAMES) {
    if (trimmed.endsWith(`/${name}`)) {
      return { baseUri: trimmed.slice(0, -(name.length + 1)), isDirectory: true };
    }
  }
  return { baseUri: trimmed, isDirectory: false };
}

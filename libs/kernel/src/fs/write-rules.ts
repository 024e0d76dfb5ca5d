import { invalidArgument, KernelError, KernelErrorCode, permissionDenied } from '../kernel.error';
import { isStandingPath } from '../identity/default-targets';
import { Identity } from '../identity/identity';
import { uriSegments, userRoot, VIKING_ROOT } from '../uri/uri-path';

// Which file writes the content routes accept before the store is asked (docs/fs-and-mcp.md,
// "Content writes"): derived files are refused, `create` only makes text files with known
// extensions, a user space only takes files in the places agents are meant to write, and no file
// takes the place of a standing directory. `/content/write`, every operation of `/content/batch-write`,
// the upload link and each file an `mv` lands pass this one function.

/** Extensions `mode:"create"` may create (lower case, with the dot). */
export const CREATE_EXTENSIONS: readonly string[] = [
  '.md',
  '.txt',
  '.json',
  '.yaml',
  '.yml',
  '.toml',
  '.py',
  '.js',
  '.ts',
];
const SIDECARS = new Set(['.abstract.md', '.overview.md']);
/**
 * User-space roots agents may not write directly (managed by the sessions and peers features). Unlike
 * the reference, a user's `skills/` stays writable: Muninn has no other way to add a user skill.
 */
const MANAGED = new Set(['peers', 'privacy', 'sessions']);
const USER_CONTAINER = `${VIKING_ROOT}user`;

/** `upsert` (batch only) creates a missing file, so it passes the rules of `create`. */
export type WriteMode = 'replace' | 'append' | 'create' | 'upsert';

/**
 * Throws INVALID_ARGUMENT when a write of `uri` (canonical) in `mode` is refused by rule, whatever
 * the store holds; `field` is the request field the refusal names.
 */
export function checkContentWrite(uri: string, mode: WriteMode, field = 'uri'): void {
  const segs = uriSegments(uri);
  const leaf = segs[segs.length - 1] ?? '';
  if (leaf === '.relations.json') {
    throw invalidArgument(`cannot write derived semantic file directly: ${uri}`, { field });
  }
  if (mode === 'create' || mode === 'upsert') {
    if (SIDECARS.has(leaf)) {
      throw invalidArgument(`cannot create generated abstract overview directly: ${uri}`, { field });
    }
    const dot = leaf.lastIndexOf('.');
    const ext = dot > 0 ? leaf.slice(dot).toLowerCase() : '';
    if (!CREATE_EXTENSIONS.includes(ext)) {
      throw invalidArgument(`create mode does not allow extension '${ext}': ${uri}`, { field });
    }
  }
  if (segs[0] === 'user' && segs.length >= 3) checkUserPlacement(uri, segs.slice(2), field);
  // A file there would make every later write below it a 409 (docs/fs-and-mcp.md, "Standing directories").
  if (uri === USER_CONTAINER || isStandingPath(uri)) {
    throw invalidArgument(`${uri} is a standing directory, not a file: write a file below it`, { field });
  }
}

function checkUserPlacement(uri: string, rest: string[], field: string): void {
  const [head] = rest;
  const refuse = () =>
    invalidArgument(`user-scope writes need a file under memories/, resources/, or directly at the user root: ${uri}`, {
      field,
    });
  if ((head === 'memories' || head === 'resources') && rest.length === 1) throw refuse();
  // Deeper `memories`/`resources` (e.g. peers/<p>/memories/…) are ordinary places to write.
  if (MANAGED.has(head!) && !rest.slice(1).some((s) => s === 'memories' || s === 'resources')) throw refuse();
}

/** USER callers reindex only inside their own user space; sessions are not indexed content. */
export function checkReindexTarget(identity: Identity, uri: string): void {
  const segs = uriSegments(uri);
  const own = userRoot(identity.userId);
  if (identity.role === 'user' && !(uri === own || uri.startsWith(`${own}/`))) {
    throw permissionDenied('USER can only reindex their own user namespace.', uri);
  }
  if (segs[0] === 'user' && segs[2] === 'sessions') {
    throw new KernelError(KernelErrorCode.UnsupportedUri, `reindex does not support session URIs: ${uri}`, { uri });
  }
}

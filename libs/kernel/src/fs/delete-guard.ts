import { KernelError, KernelErrorCode, permissionDenied } from '../kernel.error';
import { canChangeSubtree } from '../identity/access';
import { Identity } from '../identity/identity';
import { uriSegments } from '../uri/uri-path';

// Namespace roots cannot be deleted by tenant callers (docs/fs-and-mcp.md, "Access rules"): the
// account root never, the container of user spaces never, scope roots and the caller's own user root
// only with the root key. Everything below them follows the ordinary write rules. A move removes its
// source, so `mv` passes these rules at its source as a delete of it would.

/** What removes a node; it names the refusal. */
export type Removal = 'Deleting' | 'Moving';

const VERB: Record<Removal, string> = { Deleting: 'delete', Moving: 'move' };

/** Throws PERMISSION_DENIED when `uri` (canonical) is a namespace root `identity` may not delete (or move). */
export function assertDeletable(identity: Identity, uri: string, action: Removal = 'Deleting'): void {
  const segs = uriSegments(uri);
  const below = `${VERB[action]} a file or directory below it.`;
  if (segs.length === 0) {
    throw permissionDenied(`${action} viking:// is not supported; ${below}`, uri);
  }
  if (segs.length === 1 && segs[0] === 'user') {
    throw permissionDenied(`${action} viking://user is not supported; ${below}`, uri);
  }
  if (identity.role === 'root') return;
  const scopeRoot = segs.length === 1;
  const userRoot = segs.length === 2 && segs[0] === 'user';
  const peersRoot = segs.length === 3 && segs[0] === 'user' && segs[2] === 'peers' && identity.actorPeerId !== null;
  if (scopeRoot || userRoot || peersRoot) {
    throw permissionDenied(`${action} ${uri} is not supported: namespace root requires root access.`, uri);
  }
}

/**
 * Throws PERMISSION_DENIED when `identity` may not change the whole subtree of the directory `uri`
 * (canonical) at once: a recursive delete, a move of it or a recursive reindex. In the shared
 * resources tree that needs role admin ({@link canChangeSubtree}): a user may remove single files
 * there, not what others wrote below a directory.
 */
export function assertSubtreeChangeable(
  identity: Identity,
  uri: string,
  action: Removal | 'Reindexing' | 'Tagging' = 'Deleting',
): void {
  if (canChangeSubtree(identity, uri)) return;
  throw new KernelError(
    KernelErrorCode.PermissionDenied,
    `${action} a directory of the shared resources tree needs role admin: ${uri}`,
    { resource: uri },
  );
}

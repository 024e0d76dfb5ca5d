import { permissionDenied } from '../kernel.error';
import { Identity } from '../identity/identity';
import { uriSegments } from '../uri/uri-path';

// Namespace roots cannot be deleted by tenant callers (docs/fs-and-mcp.md, "Access rules"): the
// account root never, the container of user spaces never, scope roots and the caller's own user root
// only with the root key. Everything below them follows the ordinary write rules.

/** Throws PERMISSION_DENIED when `uri` (canonical) is a namespace root `identity` may not delete. */
export function assertDeletable(identity: Identity, uri: string): void {
  const segs = uriSegments(uri);
  if (segs.length === 0) {
    throw permissionDenied('Deleting viking:// is not supported; delete a file or directory below it.', uri);
  }
  if (segs.length === 1 && segs[0] === 'user') {
    throw permissionDenied('Deleting viking://user is not supported; delete a file or directory below it.', uri);
  }
  if (identity.role === 'root') return;
  const scopeRoot = segs.length === 1;
  const userRoot = segs.length === 2 && segs[0] === 'user';
  const peersRoot = segs.length === 3 && segs[0] === 'user' && segs[2] === 'peers' && identity.actorPeerId !== null;
  if (scopeRoot || userRoot || peersRoot) {
    throw permissionDenied(`Deleting ${uri} is not supported: namespace root requires root access.`, uri);
  }
}

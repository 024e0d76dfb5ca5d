import { uriSegments, VIKING_ROOT } from '../uri/uri-path';
import { Identity } from './identity';

// Decision (brief item 3): a `user` may write its own space and the account-shared
// `viking://resources`; `viking://agent` (account-global skills) is writable by admin and root
// only, because one user's edit would change every agent in the account. Admin gets no write
// access to other users' spaces here: user management goes through the admin API, not content.

/** Whether the identity may read `uri` (canonical form). Root reads its whole account. */
export function canRead(identity: Identity, uri: string): boolean {
  if (!uri.startsWith(VIKING_ROOT)) return false;
  if (identity.role === 'root') return true;
  const segments = uriSegments(uri);
  if (segments.length === 0) return true;
  const [scope] = segments;
  if (scope === 'resources' || scope === 'agent') return true;
  return scope === 'user' && isOwnVisibleSpace(identity, segments);
}

/** Whether the identity may create or change content at `uri` (canonical form). */
export function canWrite(identity: Identity, uri: string): boolean {
  if (!uri.startsWith(VIKING_ROOT)) return false;
  const segments = uriSegments(uri);
  if (segments.length === 0) return false;
  if (identity.role === 'root') return true;
  const [scope] = segments;
  if (scope === 'resources') return true;
  if (scope === 'agent') return identity.role === 'admin';
  return scope === 'user' && isOwnVisibleSpace(identity, segments);
}

function isOwnVisibleSpace(identity: Identity, segments: string[]): boolean {
  if (segments.length < 2 || segments[1] !== identity.userId) return false;
  // The actor view hides every other peer's subtree but not the peers collection itself.
  const actor = identity.actorPeerId;
  if (actor && segments[2] === 'peers' && segments.length >= 4) return segments[3] === actor;
  return true;
}

/**
 * Whether the identity may delete or reindex the whole subtree at `uri`. In the account-shared
 * `viking://resources` tree that needs admin or root: a plain user may write and delete single files
 * there, but not wipe what others wrote (docs/limits-and-security.md, "Keys and roles").
 */
export function canChangeSubtree(identity: Identity, uri: string): boolean {
  if (!canWrite(identity, uri)) return false;
  return uriSegments(uri)[0] !== 'resources' || identity.role !== 'user';
}

import { uriSegments, userRoot } from '../uri/uri-path';
import { ContextType, Identity } from './identity';

export const RESOURCES_ROOT = 'viking://resources';
export const AGENT_SKILLS_ROOT = 'viking://agent/skills';

/**
 * Default retrieval directories (docs/contract.md#default-targets, #bucketed-mode); [] means "no restriction" and is
 * returned for root only.
 */
export function defaultTargets(identity: Identity, contextType?: ContextType): string[] {
  if (identity.role === 'root') return [];
  const root = userRoot(identity.userId);
  const actor = identity.actorPeerId;
  const peerRoot = actor ? `${root}/peers/${actor}` : null;
  switch (contextType) {
    case 'memory':
      return peerRoot ? [`${root}/memories`, `${peerRoot}/memories`] : [root];
    case 'resource':
      return peerRoot ? [RESOURCES_ROOT, `${root}/resources`, `${peerRoot}/resources`] : [RESOURCES_ROOT, root];
    case 'skill':
      return [`${root}/skills`, AGENT_SKILLS_ROOT];
    default:
      return peerRoot ? [RESOURCES_ROOT, ...userRootTargets(identity)] : [root, RESOURCES_ROOT];
  }
}

/** What an explicit target equal to the caller's user root expands to (actor view applied). */
export function userRootTargets(identity: Identity): string[] {
  const root = userRoot(identity.userId);
  const actor = identity.actorPeerId;
  if (!actor) return [root];
  return [
    `${root}/memories`,
    `${root}/resources`,
    `${root}/skills`,
    `${root}/peers/${actor}/memories`,
    `${root}/peers/${actor}/resources`,
  ];
}

/**
 * The directories every caller has before anything is written (docs/fs-and-mcp.md, "Standing directories"):
 * the shared scope roots and the caller's own space with its default folders. They list as empty rather than
 * 404 until a write creates them, so an agent that lists `viking://~/memories` of a new user gets an empty
 * listing, not an error.
 */
export function standingDirectories(identity: Identity): string[] {
  return standingDirectoriesOf(identity.userId);
}

export function isStandingDirectory(identity: Identity, uri: string): boolean {
  return standingDirectories(identity).includes(uri);
}

/** Whether `uri` (canonical) is a standing directory of whichever user space it lies in, or a shared one. */
export function isStandingPath(uri: string): boolean {
  const [scope, owner] = uriSegments(uri);
  // Outside a user space the owner is irrelevant: only the shared roots can match.
  return standingDirectoriesOf(scope === 'user' ? (owner ?? '') : '').includes(uri);
}

function standingDirectoriesOf(userId: string): string[] {
  const root = userRoot(userId);
  return [
    RESOURCES_ROOT,
    'viking://agent',
    AGENT_SKILLS_ROOT,
    root,
    `${root}/memories`,
    `${root}/resources`,
    `${root}/skills`,
    `${root}/sessions`,
  ];
}

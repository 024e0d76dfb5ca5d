import { userRoot } from '../uri/uri-path';
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

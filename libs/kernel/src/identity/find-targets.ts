import { invalidArgument, permissionDenied } from '../kernel.error';
import { identifierProblem } from '../uri/identifier';
import { uriSegments, userRoot, VIKING_ROOT } from '../uri/uri-path';
import { canonicalizeUri } from '../uri/viking-uri';
import { canRead } from './access';
import { defaultTargets, userRootTargets } from './default-targets';
import { Identity } from './identity';

const AGENT_SUBSCOPES = new Set(['skills', 'endpoints', 'tools', 'payments']);

/**
 * Resolve `/find` `target_uri` into search directories (docs/contract.md#default-targets): blanks, `/` and `viking://`
 * are
 * ignored, an empty result means the defaults, and [] (root only) means unrestricted.
 */
export function resolveFindTargets(
  identity: Identity,
  targetUri: string | readonly string[] | undefined | null,
): string[] {
  const raw = typeof targetUri === 'string' ? [targetUri] : [...(targetUri ?? [])];
  const explicit: string[] = [];
  for (const item of raw) {
    if (!item || item === '/' || item === VIKING_ROOT) continue;
    const canonical = canonicalizeUri(item, identity.userId);
    if (canonical !== VIKING_ROOT && !explicit.includes(canonical)) explicit.push(canonical);
  }
  if (explicit.length === 0) return defaultTargets(identity);

  const directories: string[] = [];
  for (const target of explicit) {
    for (const directory of expandTarget(identity, target)) {
      if (!canRead(identity, directory)) throw permissionDenied(`Access denied for ${directory}`, directory);
      if (!directories.includes(directory)) directories.push(directory);
    }
  }
  return directories;
}

function expandTarget(identity: Identity, target: string): string[] {
  const root = userRoot(identity.userId);
  if (target === root) return userRootTargets(identity);
  const segments = uriSegments(target);
  if (segments[0] === 'agent' && segments.length >= 2 && AGENT_SUBSCOPES.has(segments[1]!)) return [target];
  if (segments[0] === 'user' && segments[1] === identity.userId && segments[2] === 'peers') {
    return expandPeerTarget(identity, target, segments.slice(3));
  }
  return [target];
}

function expandPeerTarget(identity: Identity, target: string, rest: string[]): string[] {
  const actor = identity.actorPeerId;
  const peersRoot = `${userRoot(identity.userId)}/peers`;
  if (rest.length === 0) {
    return actor ? [`${peersRoot}/${actor}/memories`, `${peersRoot}/${actor}/resources`] : [target];
  }
  const peerId = rest[0]!;
  const problem = identifierProblem(peerId, 'peer_id');
  if (problem) throw invalidArgument(`Invalid peer_id: ${problem}`);
  if (actor && peerId !== actor) {
    throw permissionDenied("Actor peer cannot access another peer's context.", target);
  }
  if (rest.length === 1) return [`${peersRoot}/${peerId}/memories`, `${peersRoot}/${peerId}/resources`];
  if (rest[1] !== 'memories' && rest[1] !== 'resources') {
    throw invalidArgument('Only peer memories and resources are searchable.');
  }
  return [target];
}

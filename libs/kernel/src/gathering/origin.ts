import { Origin, ORIGIN_ORDER } from '../tiering/candidate';
import { isUnder, uriSegments, userRoot } from '../uri/uri-path';

/**
 * Origin of a URI (docs/contract.md#candidates-from-hits): under `{u}/peers/{actor}` → actor_peer, any other peer →
 * other_peer, else self.
 */
export function originForUri(uri: string, userId: string, actorPeerId: string | null): Origin {
  const peersRoot = `${userRoot(userId)}/peers`;
  if (!isUnder(uri, peersRoot)) return 'self';
  const peerId = uriSegments(uri)[3] ?? '';
  return actorPeerId && peerId === actorPeerId ? 'actor_peer' : 'other_peer';
}

/** `{actor_peer, self, other_peer}` counts over candidates, keys always present (docs/contract.md#stats). */
export function countOrigins(items: ReadonlyArray<{ origin: Origin }>): Record<Origin, number> {
  const counts = Object.fromEntries(ORIGIN_ORDER.map((origin) => [origin, 0])) as Record<Origin, number>;
  for (const item of items) counts[item.origin] += 1;
  return counts;
}

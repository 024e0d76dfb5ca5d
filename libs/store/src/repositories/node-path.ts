/** What the store derives from a canonical `viking://` URI at write time. */
export interface NodePath {
  parentUri: string | null;
  ownerUserId: string | null;
  peerId: string | null;
  contextType: 'memory' | 'resource' | 'skill';
}

const ROOTS = new Set(['viking://', 'viking:/']);

/** Derives parent, owning user space, peer subtree and context type from a canonical URI. */
export function nodePath(uri: string): NodePath {
  const rest = uri.slice('viking://'.length);
  const segs = rest.split('/').filter((s) => s.length > 0);
  const parentUri = segs.length <= 1 ? null : `viking://${segs.slice(0, -1).join('/')}`;
  const ownerUserId = segs[0] === 'user' && segs.length >= 2 ? segs[1] : null;
  const peerId = ownerUserId && segs[2] === 'peers' && segs.length >= 4 ? segs[3] : null;
  return { parentUri, ownerUserId, peerId, contextType: contextTypeOf(segs) };
}

function contextTypeOf(segs: string[]): NodePath['contextType'] {
  // Only a user's (or a user's peer's) memories are memories; viking://resources/x/memories/… is a resource.
  if (segs[0] === 'user' && segs.includes('memories')) return 'memory';
  if (segs[0] === 'agent' && segs[1] === 'skills') return 'skill';
  if (segs[0] === 'user' && segs[2] === 'skills') return 'skill';
  return 'resource';
}

/** Every ancestor directory of `uri`, nearest first, excluding the scheme root. */
export function ancestors(uri: string): string[] {
  const out: string[] = [];
  let p = nodePath(uri).parentUri;
  while (p && !ROOTS.has(p)) {
    out.push(p);
    p = nodePath(p).parentUri;
  }
  return out;
}

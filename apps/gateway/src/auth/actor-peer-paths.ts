/**
 * Routes that never read `X-OpenViking-Actor-Peer` (docs/fs-and-mcp.md, "Actor peer header"): session
 * contexts are built without a peer, so a malformed header there is ignored, not a 400 (the
 * reference's behaviour, which its plugins rely on when they send the header on every call).
 */
const IGNORING_PREFIXES = ['/api/v1/sessions'];

export function readsActorPeer(path: string): boolean {
  return !IGNORING_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

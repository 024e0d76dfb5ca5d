/** Other peers rank below own hits after penalties, so their scan looks this many times deeper. */
export const OTHER_PEER_OVERFETCH = 4;

/** Over-fetch to compensate exclusions (docs/contract.md#over-fetch): `want + min(excluded, 2·want)`. */
export function overfetch(want: number, excludedCount: number): number {
  return want + Math.min(excludedCount, want * 2);
}

/** Hits to request from the other-peer scan: `overfetch(max(4·want, want))`. */
export function peerScanLimit(want: number, excludedCount: number): number {
  return overfetch(Math.max(want * OTHER_PEER_OVERFETCH, want), excludedCount);
}

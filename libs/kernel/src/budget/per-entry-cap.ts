/** Per-entry token ceiling (docs/contract.md#per-entry-cap): twice the average share, floored before doubling. */
export function perEntryCap(maxTokens: number, candidateCount: number): number {
  return Math.max(1, Math.floor(maxTokens / Math.max(1, candidateCount)) * 2);
}

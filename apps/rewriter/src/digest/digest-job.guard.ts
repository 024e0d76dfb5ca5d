import { DigestJob } from '@app/contracts';

/** Structural check of a `digest` payload: anything else is a producer bug and fails without retry. */
export function isDigestJob(d: unknown): d is DigestJob {
  const j = d as DigestJob;
  return (
    !!j &&
    typeof j === 'object' &&
    typeof j.query === 'string' &&
    typeof j.rendered === 'string' &&
    Array.isArray(j.validUris) &&
    j.validUris.every((u) => typeof u === 'string') &&
    Number.isInteger(j.maxBullets) &&
    j.maxBullets >= 1 &&
    Number.isFinite(j.timeoutMs) &&
    j.timeoutMs > 0
  );
}

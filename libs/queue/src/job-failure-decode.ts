import { parseJobFailure } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(KernelErrorCode));

/**
 * The one place a failed job's error is turned back into a domain error for its caller: a worker's
 * coded failure (libs/contracts job-failure) becomes the {@link KernelError} it stood for; a failure
 * without a known code (a stalled job, a BullMQ error) stays as it is, and callers treat it as internal.
 */
export function decodeJobFailure(err: unknown): unknown {
  if (err instanceof KernelError) return err;
  const failure = parseJobFailure(err instanceof Error ? err.message : String(err));
  if (!failure || !KNOWN_CODES.has(failure.code)) return err;
  return new KernelError(failure.code as KernelErrorCode, failure.message);
}

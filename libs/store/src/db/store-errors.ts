import { KernelError, KernelErrorCode } from '@app/kernel';

/** A statement ran past the store's statement timeout and was stopped (504, never the database's text). */
export function statementTimedOut(timeoutMs: number): KernelError {
  return new KernelError(
    KernelErrorCode.DeadlineExceeded,
    `The store statement ran longer than the ${timeoutMs} ms statement timeout and was cancelled`,
    { reason: 'statement_timeout', timeout_ms: timeoutMs },
  );
}

/** The embedded store was restarted under a statement; it can be retried (503). */
export function storeRestarted(reason: string): KernelError {
  const message = `The embedded store was restarted (${reason}); retry the request`;
  return new KernelError(KernelErrorCode.Unavailable, message, { service: 'store', reason });
}

import { jittered, KernelError, KernelErrorCode } from '@app/kernel';

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

// SQLSTATEs that mean "the server is not there for us right now", not "this statement is wrong":
// class 08 (connection exception), admin/crash shutdown, cannot connect now, too many connections.
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The store server could not be reached or dropped the connection (the reference maps its storage
 * backend's 5xx and connection failures to 503 UNAVAILABLE; docs/fs-and-mcp.md, case 42). Null for
 * any other error, which keeps its own meaning.
 */
export function storeUnreachable(err: unknown): KernelError | null {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  const unreachable =
    code.startsWith('08') ||
    UNAVAILABLE_STATES.has(code) ||
    SOCKET_ERRORS.has(code) ||
    (code === '55000' && /not currently accepting connections/i.test(message)) ||
    /^Connection terminated/i.test(message);
  if (!unreachable) return null;
  return new KernelError(KernelErrorCode.Unavailable, 'The store is unreachable; retry the request', {
    service: 'store',
    reason: code || 'connection',
  });
}

// SQLSTATEs of a transaction PostgreSQL aborted for another's sake: deadlock victim, serialization failure.
const ABORTED_STATES = new Set(['40P01', '40001']);
const ABORT_RETRIES = 3;

/**
 * Runs `transaction` again when the server aborted it as a deadlock victim (at most three attempts, a
 * short pause between). For the long transactions that touch every row of a tenant (deleting a user or an
 * account, removing a failed import) while the indexer updates some of those rows in its own order: the
 * other transaction has committed when this one is retried. Any other error is thrown at once.
 */
export async function retryAborted<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (attempt >= ABORT_RETRIES || typeof code !== 'string' || !ABORTED_STATES.has(code)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * An account's rows are being removed (the account, a user, a failed import): the indexer's update of that
 * account is put back for later instead of waiting for the removal (see tenant-rows-lock.ts). Not a failure
 * of the job: its queue delays it without counting an attempt.
 */
export class TenantBusy extends Error {
  constructor(readonly accountId: string) {
    super(`rows of account ${accountId} are being removed; the update is put back for later`);
    this.name = 'TenantBusy';
  }
}

/**
 * About how long an index, summary or extraction job is put back for while its account's rows are being
 * removed (docs/limits-and-security.md, "Tenant data on deletion and in MCP"): each return costs one probe
 * of the lock.
 */
export const TENANT_BUSY_DELAY_MS = 1000;

/** The pause for a job that met a removal of its account's rows; null for any other error (a failure). */
export function tenantBusyDeferral(err: unknown): number | null {
  return err instanceof TenantBusy ? jittered(TENANT_BUSY_DELAY_MS) : null;
}

/** What a statement its caller stopped waiting for rejects with (QueryOptions.signal): the signal's reason. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new KernelError(KernelErrorCode.DeadlineExceeded, 'the statement was cancelled: its caller stopped waiting');
}

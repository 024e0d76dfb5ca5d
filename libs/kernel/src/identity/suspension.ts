import { KernelError, KernelErrorCode } from '../kernel.error';

/**
 * A suspended account (docs/limits-and-security.md, "Suspending an account"): its keys are refused
 * while its data, limits and trail are kept, until root resumes it.
 */
export interface AccountSuspension {
  /** When the account was suspended (ISO 8601). */
  since: string;
  /** What the operator gave as the reason, shown to the account's callers; "" when none. */
  reason: string;
}

/** Longest reason an operator can give (it is shown in every refusal). */
export const SUSPENSION_REASON_MAX_CHARS = 500;

/** 403 for every request made with a key of a suspended account. */
export function accountSuspended(accountId: string, s: AccountSuspension): KernelError {
  const why = s.reason ? `: ${s.reason}` : '';
  return new KernelError(
    KernelErrorCode.PermissionDenied,
    `Account ${accountId} is suspended since ${s.since}${why}. Its data is kept; its keys are refused until the operator resumes it.`,
    { account_id: accountId, suspended: true, since: s.since, reason: s.reason },
  );
}

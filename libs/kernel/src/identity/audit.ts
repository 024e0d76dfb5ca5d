/**
 * The admin audit trail (docs/limits-and-security.md, "Audit trail"): what was done to accounts, users,
 * keys and limits, by whom, when.
 */
export const AUDIT_ACTIONS = [
  'account.create',
  'account.delete',
  'account.limits',
  'account.suspend',
  'account.resume',
  'account.export',
  'account.import',
  'user.create',
  'user.delete',
  'user.role',
  'user.key',
  'user.previous_key_revoke',
  'user.export',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One event as the API lists it, newest first. */
export interface AuditEvent {
  id: number;
  at: string;
  action: AuditAction;
  /** The account acted on (it may since have been deleted). */
  account_id: string;
  /** The user acted on, for user actions. */
  user_id: string | null;
  /** Who did it: an account admin, or the root key (`role: root`, no account or user). */
  actor: { account_id: string | null; user_id: string | null; role: string };
  /** What changed: a role, a limit set, whether a key was seeded; never a key. */
  details: Record<string, unknown>;
  request_id: string | null;
}

/** Events one page lists at most, and by default. */
export const AUDIT_PAGE = { max: 500, default: 50 } as const;

/** Accounts one page of `GET /admin/accounts` lists at most, and by default. */
export const ACCOUNTS_PAGE = { max: 1000, default: 1000 } as const;

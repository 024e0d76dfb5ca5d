import { AppConfig } from '@app/config';
import { AuditAction, Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { currentRequestId } from '@app/queue';
import { AuditRepository, AuditSink } from '@app/store';

/** The admin API needs api_key mode: dev mode's callers all act as one account's default user. */
function requireApiKeyMode(config: AppConfig) {
  if (config.auth.mode !== 'api_key') {
    throw new KernelError(
      KernelErrorCode.PermissionDenied,
      'Admin API requires api_key mode with root_api_key configured (set MUNINN_ROOT_API_KEY).',
    );
  }
}

/** Root only (docs/limits-and-security.md, "Keys and roles"). */
export function requireRoot(config: AppConfig, caller: Identity) {
  requireApiKeyMode(config);
  if (caller.role !== 'root') throw new KernelError(KernelErrorCode.PermissionDenied, 'Requires role: root');
}

/** Root, or an admin of `accountId` itself. */
export function requireManager(config: AppConfig, caller: Identity, accountId: string) {
  requireApiKeyMode(config);
  if (caller.role === 'root') return;
  if (caller.role !== 'admin') throw new KernelError(KernelErrorCode.PermissionDenied, 'Requires role: root, admin');
  if (caller.accountId !== accountId) {
    throw new KernelError(KernelErrorCode.PermissionDenied, `ADMIN can only manage account: ${caller.accountId}`);
  }
}

/**
 * Where an admin action records itself (docs/limits-and-security.md, "Audit trail"): the store writes
 * the event in the action's own transaction, so an action whose event cannot be recorded does not
 * take effect either, and the trail misses no change.
 */
export function adminAudit(
  audits: AuditRepository,
  caller: Identity,
  action: AuditAction,
  accountId: string,
  userId: string | null = null,
  details: Record<string, unknown> = {},
): AuditSink {
  const root = caller.role === 'root';
  return audits.sink({
    action,
    accountId,
    userId,
    actor: { accountId: root ? null : caller.accountId, userId: root ? null : caller.userId, role: caller.role },
    details,
    requestId: currentRequestId() ?? null,
  });
}

import { jittered } from '@app/queue';
import { TenantBusy } from '@app/store';

/**
 * About how long an index or summary job is put back for while its account's rows are being removed
 * (docs/limits-and-security.md, "Tenant data on deletion and in MCP"): each return costs one probe of the lock.
 */
export const TENANT_BUSY_DELAY_MS = 1000;

/** The pause for a job that met a removal of its account's rows; null for any other error (a failure). */
export function tenantBusyDeferral(err: unknown): number | null {
  return err instanceof TenantBusy ? jittered(TENANT_BUSY_DELAY_MS) : null;
}

/** The suspension an account holds while its import runs: no key of it is served until it is whole. */
export const IMPORT_SUSPENSION_REASON = 'import in progress';

/**
 * SQL over `accounts`: held by an import whose heartbeat is older than the milliseconds in parameter `$n`
 * (its gateway stopped). Only an import's own account has a heartbeat: an operator's suspension clears it,
 * so an account an operator suspended, whatever the reason given, is never taken for an abandoned import.
 * See docs/limits-and-security.md, "Importing an account".
 */
export function abandonedImportSql(n: number): string {
  return `suspended_reason = '${IMPORT_SUSPENSION_REASON}' AND import_heartbeat_at < now() - $${n} * interval '1 millisecond'`;
}

/**
 * SQL over `accounts`: held by the import that suspended it at the time in parameter `$(a+1)`, the account id in
 * `$a` (an `ImportClaim`). An operator's suspension clears the heartbeat, so it is never an import's hold.
 */
export function importHeldSql(a: number): string {
  return `account_id = $${a} AND suspended_reason = '${IMPORT_SUSPENSION_REASON}' AND suspended_at = $${a + 1}::timestamptz
    AND import_heartbeat_at IS NOT NULL`;
}

import type { Db } from './db.port';
import { TenantBusy } from './store-errors';

type Tx = Pick<Db, 'query'>;

/** Advisory lock class of an account's rows (the term statistics' compaction uses 4242090). */
const TENANT_ROWS = 4242091;

/**
 * A transaction that removes many rows of an account (the account, a user, a failed import) takes this lock
 * exclusively before its first row; the indexer's updates of that account's nodes take it shared before
 * theirs. The indexer locks a batch's rows in whatever order its join visits them, so without it the two
 * deadlocked on PostgreSQL, three times in a row under a refused import's burst of index jobs, and the
 * failed import stayed behind for the sweep. Held to the transaction's end.
 *
 * The removal waits for the indexer's few running updates; the indexer never waits for the removal (see
 * {@link shareTenantRows}).
 */
export async function lockTenantRows(tx: Tx, accountId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TENANT_ROWS, accountId]);
}

/**
 * The indexer's side of {@link lockTenantRows}: the shared lock if it is free, else {@link TenantBusy} at
 * once. Waiting for it held an index worker for as long as the removal ran (up to the store's statement
 * timeout, then again on the job's retry), and a large account's removal filled every worker with that
 * account's waiting jobs while other accounts' writes stayed unsearchable (docs/limits-and-security.md,
 * "Tenant data on deletion and in MCP"). A removal already waiting for the lock also refuses it here, so
 * the indexer cannot starve a removal either. Outside a transaction the lock is released with the
 * statement: a probe, which an index job makes before it spends an embedding on rows it could not store.
 */
export async function shareTenantRows(db: Tx, accountId: string): Promise<void> {
  const { rows } = await db.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock_shared($1, hashtext($2)) AS ok', [
    TENANT_ROWS,
    accountId,
  ]);
  if (rows[0]?.ok !== true) throw new TenantBusy(accountId);
}

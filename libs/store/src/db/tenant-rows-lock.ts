import type { Db } from './db.port';

type Tx = Pick<Db, 'query'>;

/** Advisory lock class of an account's rows (the term statistics' compaction uses 4242090). */
const TENANT_ROWS = 4242091;

/**
 * A transaction that removes many rows of an account (the account, a user, a failed import) takes this lock
 * exclusively before its first row; the indexer's updates of that account's nodes take it shared before
 * theirs. The indexer locks a batch's rows in whatever order its join visits them, so without it the two
 * deadlocked on PostgreSQL, three times in a row under a refused import's burst of index jobs, and the
 * failed import stayed behind for the sweep. Now one waits for the other. Held to the transaction's end.
 */
export async function lockTenantRows(tx: Tx, accountId: string, mode: 'exclusive' | 'shared'): Promise<void> {
  const fn = mode === 'exclusive' ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared';
  await tx.query(`SELECT ${fn}($1, hashtext($2))`, [TENANT_ROWS, accountId]);
}

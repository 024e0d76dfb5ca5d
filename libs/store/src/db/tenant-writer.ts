import { AsyncLocalStorage } from 'node:async_hooks';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { Db, QueryOptions, TransactionOptions } from './db.port';
import { isWrite } from './write-scope';

type Tx = Pick<Db, 'query' | 'kind'>;

/** The registered user a request writes as (a user or admin key; not root, not dev mode's header identities). */
export interface TenantWriter {
  accountId: string;
  userId: string;
}

const writers = new AsyncLocalStorage<TenantWriter>();

/** Runs `fn` (and everything it starts) as `writer`'s request. */
export function runAsTenantWriter<T>(writer: TenantWriter, fn: () => T): T {
  return writers.run(writer, fn);
}

/**
 * The store as a registered user's request sees it (docs/limits-and-security.md, "Tenant data on deletion"): each
 * transaction holds the writer's `users` row (FOR KEY SHARE) just before its first writing statement, and a single
 * writing statement runs in a transaction that does so. A user's or account's deletion removes that row first, so
 * it waits for a write that holds it and then removes what the write made too, and a write that comes after it
 * finds no row and is refused (401), where it waited and then landed under the deleted ids, for a user or account
 * made again under them to find. Other writers' shares of the row do not wait for each other.
 */
export function tenantGuardedDb(db: Db): Db {
  const hold = async (tx: Tx, w: TenantWriter) => {
    const { rows } = await tx.query('SELECT 1 FROM users WHERE account_id = $1 AND user_id = $2 FOR KEY SHARE', [
      w.accountId,
      w.userId,
    ]);
    if (rows.length === 0)
      throw new KernelError(KernelErrorCode.Unauthenticated, 'The key belongs to a user or account that was deleted', {
        account_id: w.accountId,
        user_id: w.userId,
      });
  };
  const guarded = <R>(w: TenantWriter, fn: (tx: Tx) => Promise<R>, opts?: TransactionOptions) =>
    db.transaction((tx) => {
      let held = false;
      return fn({
        kind: tx.kind,
        async query<T = Record<string, unknown>>(sql: string, params?: unknown[], qOpts?: QueryOptions) {
          if (!held && isWrite(sql)) {
            await hold(tx, w);
            held = true;
          }
          return tx.query<T>(sql, params, qOpts);
        },
      });
    }, opts);
  return {
    kind: db.kind,
    query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const w = writers.getStore();
      if (!w || !isWrite(sql)) return db.query<T>(sql, params, opts);
      return guarded(w, (tx) => tx.query<T>(sql, params));
    },
    transaction<R>(fn: (tx: Tx) => Promise<R>, opts?: TransactionOptions) {
      const w = writers.getStore();
      return w ? guarded(w, fn, opts) : db.transaction(fn, opts);
    },
    exec: (sql: string) => db.exec(sql),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

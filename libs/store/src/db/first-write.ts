import { Db, QueryOptions, TransactionOptions } from './db.port';

type Tx = Pick<Db, 'query' | 'kind'>;

/** Statements that change rows; our SQL, never user input, so the leading keyword is reliable. */
const WRITE_STATEMENT = /^\s*(insert|update|delete|merge)\b/i;
const WRITING_CTE = /^\s*with\b[\s\S]*\b(insert|update|delete)\b/i;

/** Whether `sql` changes rows (a statement of ours: its leading keyword, or a writing CTE). */
export const isWrite = (sql: string) => WRITE_STATEMENT.test(sql) || WRITING_CTE.test(sql);

/** What a request's writes do in their own transaction (an idempotency key's mark, a tenant writer's hold). */
export interface FirstWriteHook {
  /** Before the transaction begins: may refuse it. */
  begin?(): void;
  /** Inside the transaction, just before its first writing statement. */
  beforeWrite(tx: Tx): Promise<void>;
  /** Once the transaction committed: whether it wrote. */
  committed?(wrote: boolean): void;
}

/**
 * The store with the hooks `hooksOf()` names for the current request (write-scope.ts, tenant-writer.ts): each
 * transaction runs them, in order, just before its first writing statement, and a single writing statement runs in a
 * transaction that does so; a transaction that only reads runs none. With no hook, every call passes straight through.
 */
export function hookFirstWrites(db: Db, hooksOf: () => FirstWriteHook[]): Db {
  const hooked = async <R>(hooks: FirstWriteHook[], fn: (tx: Tx) => Promise<R>, opts?: TransactionOptions) => {
    for (const h of hooks) h.begin?.();
    let wrote = false;
    const out = await db.transaction(
      (tx) =>
        fn({
          kind: tx.kind,
          async query<T = Record<string, unknown>>(sql: string, params?: unknown[], qOpts?: QueryOptions) {
            if (!wrote && isWrite(sql)) {
              for (const h of hooks) await h.beforeWrite(tx);
              wrote = true;
            }
            return tx.query<T>(sql, params, qOpts);
          },
        }),
      opts,
    );
    for (const h of hooks) h.committed?.(wrote);
    return out;
  };
  return {
    kind: db.kind,
    query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const hooks = isWrite(sql) ? hooksOf() : [];
      if (hooks.length === 0) return db.query<T>(sql, params, opts);
      return hooked(hooks, (tx) => tx.query<T>(sql, params));
    },
    transaction<R>(fn: (tx: Tx) => Promise<R>, opts?: TransactionOptions) {
      const hooks = hooksOf();
      return hooks.length > 0 ? hooked(hooks, fn, opts) : db.transaction(fn, opts);
    },
    exec: (sql: string) => db.exec(sql),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

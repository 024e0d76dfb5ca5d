/** Per-transaction options. */
export interface TransactionOptions {
  /** Statement timeout inside this transaction, in ms; 0 turns it off (migrations). Default: the store's. */
  statementTimeoutMs?: number;
  /**
   * Read only, every statement seeing the database as it was at the first (PostgreSQL's REPEATABLE READ):
   * a long read that must be one instant (an export). PGlite runs one statement at a time anyway.
   */
  snapshot?: boolean;
  /**
   * How long the transaction may sit idle between statements before the server ends it, in ms (PostgreSQL).
   * Default: the store's (twice the statement timeout, at least 10 s).
   */
  idleTimeoutMs?: number;
}

/** Per-statement options. */
export interface QueryOptions {
  /**
   * The statement's caller stops waiting when it aborts (a withdrawn request-scoped job: its client went
   * away, docs/limits-and-security.md, "A client that goes away"): the query rejects with the signal's
   * reason, and on PostgreSQL the server cancels the statement (`pg_cancel_backend`), freeing its backend and
   * its CPU. PGlite runs one statement at a time inside WebAssembly, which cannot be interrupted short of its
   * worker's restart: there the statement runs on to its end (or its timeout), unwaited for.
   */
  signal?: AbortSignal;
}

/**
 * The one SQL surface the repositories use; PostgreSQL (`pg`) and embedded PGlite both implement it.
 * Every statement runs under the store's statement timeout (see docs/limits-and-security.md#statement-timeout);
 * one that runs longer fails with DEADLINE_EXCEEDED.
 */
export interface Db {
  readonly kind: 'postgres' | 'pglite';
  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    opts?: QueryOptions,
  ): Promise<{ rows: T[]; rowCount: number }>;
  /** Runs `fn` in one transaction on one connection; rolls back when it throws. */
  transaction<R>(fn: (tx: Pick<Db, 'query' | 'kind'>) => Promise<R>, opts?: TransactionOptions): Promise<R>;
  /** Runs a multi-statement script without parameters (migrations, index builds), without the statement timeout. */
  exec(sql: string): Promise<void>;
  /** Resolves when the store can take statements; never queues behind running ones (health checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

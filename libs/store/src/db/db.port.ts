/** The one SQL surface the repositories use; PostgreSQL (`pg`) and embedded PGlite both implement it. */
export interface Db {
  readonly kind: 'postgres' | 'pglite';
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[]; rowCount: number }>;
  /** Runs `fn` in one transaction on one connection; rolls back when it throws. */
  transaction<R>(fn: (tx: Pick<Db, 'query' | 'kind'>) => Promise<R>): Promise<R>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

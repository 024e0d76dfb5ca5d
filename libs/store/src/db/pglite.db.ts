import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLITE_SESSION_SETTINGS } from './session-settings';
import { mkdirSync } from 'node:fs';
import { Db, TransactionOptions } from './db.port';

/**
 * {@link Db} over an embedded PGlite database (with pgvector) on the calling thread. The server uses
 * {@link PgliteWorkerDb} instead (statements off the event loop, with a timeout); this one remains for
 * benchmarks that measure what the thread hop costs. It has no statement timeout.
 */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;

  private constructor(private readonly pg: PGlite) {}

  /** Opens (creating if needed) the database in `dataDir`; `memory://` keeps it in memory. */
  static async open(dataDir: string): Promise<PgliteDb> {
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    const pg = await PGlite.create(dataDir.startsWith('memory://') ? undefined : dataDir, { extensions: { vector } });
    await pg.exec(PGLITE_SESSION_SETTINGS);
    return new PgliteDb(pg);
  }

  async query<T>(sql: string, params: unknown[] = []) {
    const r = await this.pg.query<T>(sql, params);
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  }

  async transaction<R>(fn: (tx: Pick<Db, 'query' | 'kind'>) => Promise<R>, _opts?: TransactionOptions): Promise<R> {
    return this.pg.transaction(async (t) =>
      fn({
        kind: this.kind,
        query: async <T>(sql: string, params: unknown[] = []) => {
          const r = await t.query<T>(sql, params);
          return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
        },
      }),
    );
  }

  /** Runs a multi-statement script (migrations); PGlite's `query` takes one statement. */
  async exec(sql: string) {
    await this.pg.exec(sql);
  }

  async ping() {
    await this.pg.query('SELECT 1');
  }

  async close() {
    if (!this.pg.closed) await this.pg.close();
  }
}

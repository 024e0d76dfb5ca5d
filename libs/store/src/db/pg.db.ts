import { Pool, PoolClient } from 'pg';
import { Db } from './db.port';

/** {@link Db} over a PostgreSQL server through a `pg` pool. */
export class PgDb implements Db {
  readonly kind = 'postgres' as const;
  private readonly pool: Pool;

  constructor(connectionString: string, max = 10) {
    this.pool = new Pool({ connectionString, max });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  async query<T>(sql: string, params: unknown[] = []) {
    const r = await this.pool.query(sql, params);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  }

  async transaction<R>(fn: (tx: Pick<Db, 'query' | 'kind'>) => Promise<R>): Promise<R> {
    const client: PoolClient = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const tx = {
        kind: this.kind,
        query: async <T>(sql: string, params: unknown[] = []) => {
          const r = await client.query(sql, params);
          return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
        },
      };
      const out = await fn(tx);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async exec(sql: string) {
    await this.pool.query(sql);
  }

  async close() {
    await this.pool.end();
  }
}

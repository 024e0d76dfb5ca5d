import { Client, Pool, PoolClient } from 'pg';
import { Db, QueryOptions, TransactionOptions } from './db.port';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { abortReason, statementTimedOut, storeUnreachable } from './store-errors';

// SQLSTATE 57014 (query_canceled) is also a pg_cancel_backend(); only the timeout says so in its text.
const QUERY_CANCELED = '57014';

/** {@link Db} over a PostgreSQL server through a `pg` pool; every connection has a statement timeout. */
export class PgDb implements Db {
  readonly kind = 'postgres' as const;
  private readonly pool: Pool;
  /** Each pooled connection's server process, for a cancel. */
  private readonly pids = new WeakMap<PoolClient, number>();

  constructor(
    private readonly connectionString: string,
    max = 10,
    private readonly statementTimeoutMs = 0,
  ) {
    this.pool = new Pool({
      connectionString,
      max,
      // Session settings for every connection, so a find needs no transaction to set them
      // (docs/architecture.md, "Performance"): filtered HNSW scans keep walking until enough rows pass
      // the tenant and filter predicates, and plans over a large tenant that cross jit_above_cost are not
      // compiled (compiling would cost more than the query).
      options: '-c jit=off -c hnsw.iterative_scan=relaxed_order',
      // Sent as connection parameters: the server enforces them, even on a statement the client forgot.
      ...(statementTimeoutMs > 0
        ? {
            statement_timeout: statementTimeoutMs,
            idle_in_transaction_session_timeout: Math.max(statementTimeoutMs * 2, 10_000),
          }
        : {}),
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  async query<T>(sql: string, params: unknown[] = [], opts: QueryOptions = {}) {
    if (opts.signal) return this.cancellable<T>(sql, params, opts.signal);
    const r = await this.pool.query(sql, params).catch((err: unknown) => this.rethrow(err, this.statementTimeoutMs));
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  }

  /**
   * A statement the server cancels when `signal` aborts (docs/limits-and-security.md, "A client that goes
   * away"). The cancel goes over a connection of its own (the pool's may all be busy), and the statement's
   * connection is then closed rather than handed on, so a cancel that lands late cannot stop the next
   * statement that connection would have run.
   */
  private async cancellable<T>(sql: string, params: unknown[], signal: AbortSignal) {
    if (signal.aborted) throw abortReason(signal);
    const client = await this.pool.connect().catch((err: unknown) => this.rethrow(err, 0));
    let cancelled = false;
    let broken = false;
    try {
      const pid = await this.backendPid(client);
      if (signal.aborted) throw abortReason(signal);
      const cancel = () => {
        cancelled = true;
        void this.cancelBackend(pid);
      };
      signal.addEventListener('abort', cancel, { once: true });
      try {
        const r = await client.query(sql, params);
        return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    } catch (err) {
      if (signal.aborted) throw abortReason(signal);
      broken = storeUnreachable(err) !== null;
      return this.rethrow(err, this.statementTimeoutMs);
    } finally {
      client.release(cancelled || broken);
    }
  }

  /** The server process of a pooled connection, asked once per connection. */
  private async backendPid(client: PoolClient): Promise<number> {
    const known = this.pids.get(client);
    if (known !== undefined) return known;
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = Number(rows[0]!.pid);
    this.pids.set(client, pid);
    return pid;
  }

  /** Asks the server to cancel the statement its process `pid` runs; a failure leaves it to its timeout. */
  private async cancelBackend(pid: number): Promise<void> {
    const c = new Client({ connectionString: this.connectionString, connectionTimeoutMillis: CANCEL_CONNECT_MS });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // The statement runs on to its end or its statement timeout, as it did before it could be cancelled.
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  async transaction<R>(fn: (tx: Pick<Db, 'query' | 'kind'>) => Promise<R>, opts: TransactionOptions = {}): Promise<R> {
    const client: PoolClient = await this.pool.connect().catch((err: unknown) => this.rethrow(err, 0));
    const timeoutMs = opts.statementTimeoutMs ?? this.statementTimeoutMs;
    let broken = false;
    try {
      await client.query(opts.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      if (timeoutMs !== this.statementTimeoutMs) {
        await client.query(`SET LOCAL statement_timeout = ${Math.max(0, Math.trunc(timeoutMs))}`);
      }
      if (opts.idleTimeoutMs !== undefined) {
        await client.query(
          `SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.trunc(opts.idleTimeoutMs))}`,
        );
      }
      const tx = {
        kind: this.kind,
        query: async <T>(sql: string, params: unknown[] = []) => {
          const r = await client.query(sql, params).catch((err: unknown) => this.rethrow(err, timeoutMs));
          return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
        },
      };
      const out = await fn(tx);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      const unreachable = isUnavailable(err) ? (err as Error) : storeUnreachable(err);
      // A connection the server dropped is discarded, not handed to the next transaction.
      if (unreachable) broken = true;
      else await client.query('ROLLBACK').catch(() => undefined);
      throw unreachable ?? err;
    } finally {
      client.release(broken);
    }
  }

  /** Maintenance scripts (migrations, CREATE INDEX CONCURRENTLY) run on their own connection, untimed. */
  async exec(sql: string) {
    const client = await this.pool.connect();
    try {
      await client.query('SET statement_timeout = 0');
      await client.query(sql);
    } finally {
      await client.query('RESET statement_timeout').catch(() => undefined);
      client.release();
    }
  }

  async ping() {
    await this.pool.query('SELECT 1');
  }

  async close() {
    await this.pool.end();
  }

  private rethrow(err: unknown, timeoutMs: number): never {
    const e = err as { code?: string; message?: string };
    if (e?.code === QUERY_CANCELED && /statement timeout/i.test(e.message ?? '')) throw statementTimedOut(timeoutMs);
    throw storeUnreachable(err) ?? err;
  }
}

/** How long a cancel waits for its own connection before the statement is left to its timeout. */
const CANCEL_CONNECT_MS = 2000;

function isUnavailable(err: unknown): boolean {
  return err instanceof KernelError && err.code === KernelErrorCode.Unavailable;
}

import { Logger } from '@nestjs/common';
import { WorkAccount } from '@app/contracts';
import { untilAborted } from '@app/kernel';
import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { lockDataDir } from './data-dir-lock';
import { Db, QueryOptions, TransactionOptions } from './db.port';
import { pgliteWorkerMain, WorkerOp, WorkerPaths, WorkerReply } from './pglite-worker.main';
import { PGLITE_SESSION_SETTINGS } from './session-settings';
import { abortReason, statementTimedOut, storeRestarted } from './store-errors';

type OpBody = WorkerOp extends infer O ? (O extends { id: number } ? Omit<O, 'id'> : never) : never;

interface Pending {
  op: WorkerOp;
  timeoutMs: number;
  started: boolean;
  timer?: NodeJS.Timeout;
  resolve(reply: { rows: unknown[]; rowCount: number }): void;
  reject(err: unknown): void;
}

type Tx = Pick<Db, 'query' | 'kind'>;

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/**
 * {@link Db} over embedded PGlite running in a worker thread, so a slow statement never blocks the
 * HTTP event loop (see docs/architecture.md#embedded-store-thread).
 *
 * PGlite runs one statement at a time, synchronously inside WebAssembly, and ignores
 * `statement_timeout`. So the statement timeout is kept here: when the running statement passes it,
 * the worker is terminated (V8 stops WebAssembly too) and a new one reopens the data folder, where
 * PostgreSQL's crash recovery rolls back whatever was in flight, exactly as after a crash. Queued
 * statements that had not started are replayed on the new worker; statements of a transaction that was
 * open fail with UNAVAILABLE (it was rolled back). An in-memory database (`memory://`) cannot be
 * reopened, so there the caller gets its timeout error while the statement runs on.
 */
export class PgliteWorkerDb implements Db {
  readonly kind = 'pglite' as const;
  private readonly logger = new Logger(PgliteWorkerDb.name);
  private readonly pending = new Map<number, Pending>();
  private worker!: Worker;
  private generation = 0;
  private nextId = 1;
  private nextTx = 1;
  private closed = false;
  private opened = false;
  private restarts: number[] = [];

  private constructor(
    private readonly dataDir: string | null,
    private readonly statementTimeoutMs: number,
    /** Releases the data folder's lock (held by the process, so a restarted worker keeps it). */
    private readonly unlock: (() => void) | null,
    /** The account a statement is for: the worker takes waiting statements account by account. */
    private readonly workAccount: WorkAccount,
  ) {}

  /** Opens (creating if needed) the database in `dataDir` in a new worker; `memory://` keeps it in memory. */
  static async open(
    dataDir: string,
    opts: { statementTimeoutMs?: number; workAccount?: WorkAccount } = {},
  ): Promise<PgliteWorkerDb> {
    const dir = dataDir.startsWith('memory://') ? null : dataDir;
    if (dir) mkdirSync(dir, { recursive: true });
    // One process per folder: PGlite would let a second one open it and lose one side's writes.
    const unlock = dir ? lockDataDir(dir) : null;
    const db = new PgliteWorkerDb(dir, opts.statementTimeoutMs ?? 0, unlock, opts.workAccount ?? (() => undefined));
    db.spawn();
    try {
      await db.call({ t: 'open', dataDir: dir, init: PGLITE_SESSION_SETTINGS }, 0);
      db.opened = true;
    } catch (err) {
      await db.worker.terminate();
      unlock?.();
      throw err;
    }
    return db;
  }

  async query<T>(sql: string, params: unknown[] = [], opts: QueryOptions = {}) {
    const { signal } = opts;
    if (signal?.aborted) throw abortReason(signal);
    const running = this.call({ t: 'query', sql, params, lane: this.workAccount() }, this.statementTimeoutMs);
    // A statement's caller that stops waiting is answered at once; the statement itself runs on (QueryOptions).
    const r = await (signal ? untilAborted(running, signal, () => abortReason(signal)) : running);
    return { rows: r.rows as T[], rowCount: r.rowCount };
  }

  async transaction<R>(fn: (tx: Tx) => Promise<R>, opts: TransactionOptions = {}): Promise<R> {
    const tx = this.nextTx++;
    const timeoutMs = opts.statementTimeoutMs ?? this.statementTimeoutMs;
    await this.call({ t: 'begin', tx, lane: this.workAccount() }, timeoutMs);
    const generation = this.generation;
    const alive = () => {
      if (this.generation !== generation) throw storeRestarted('the transaction was rolled back');
    };
    const handle: Tx = {
      kind: this.kind,
      query: async <T>(sql: string, params: unknown[] = []) => {
        alive();
        const r = await this.call({ t: 'query', sql, params, tx }, timeoutMs);
        return { rows: r.rows as T[], rowCount: r.rowCount };
      },
    };
    let out: R;
    try {
      out = await fn(handle);
    } catch (err) {
      if (this.generation === generation) await this.call({ t: 'rollback', tx }, timeoutMs).catch(() => undefined);
      throw err;
    }
    alive();
    await this.call({ t: 'commit', tx }, timeoutMs);
    return out;
  }

  /** Multi-statement scripts (migrations, index builds) run without the statement timeout. */
  async exec(sql: string) {
    await this.call({ t: 'exec', sql }, 0);
  }

  /**
   * Up when the worker has the database open, even while it runs a statement: a health check must not
   * wait behind user statements (the statement timeout bounds those). Down while a restart reopens it.
   */
  async ping() {
    if (this.closed) throw storeRestarted('the store is closed');
    if (!this.opened) throw storeRestarted('the store is reopening');
  }

  /** Closes PGlite cleanly, unless a statement keeps it busy past the grace period (then it is like a crash). */
  async close(graceMs = 5000) {
    if (this.closed) return;
    const closing = this.call({ t: 'close' }, 0).catch(() => undefined);
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    await this.worker.terminate();
    for (const p of this.pending.values()) p.reject(storeRestarted('the store was closed'));
    this.pending.clear();
    try {
      this.unlock?.();
    } catch (err) {
      this.logger.warn(`data folder lock not released: ${(err as Error).message}`);
    }
  }

  private spawn(): void {
    const paths: WorkerPaths = {
      pglite: require.resolve('@electric-sql/pglite'),
      vector: require.resolve('@electric-sql/pglite-pgvector'),
    };
    const worker = new Worker(`(${pgliteWorkerMain.toString()})()`, { eval: true, workerData: paths });
    const generation = ++this.generation;
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    const current = () => generation === this.generation && !this.closed;
    worker.on('error', (err) => current() && this.restart(`worker error: ${err.message}`, null));
    worker.on('exit', (code) => current() && this.restart(`worker exited with code ${code}`, null));
    this.worker = worker;
  }

  private call(body: OpBody, timeoutMs: number): Promise<{ rows: unknown[]; rowCount: number }> {
    if (this.closed && body.t !== 'close') return Promise.reject(storeRestarted('the store is closed'));
    const op = { ...body, id: this.nextId++ } as WorkerOp;
    return new Promise((resolve, reject) => {
      this.pending.set(op.id, { op, timeoutMs, started: false, resolve, reject });
      this.worker.postMessage(op);
    });
  }

  private onReply(reply: WorkerReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return; // answered already (timed out on an in-memory store)
    if (reply.t === 'start') {
      p.started = true;
      if (p.timeoutMs > 0) p.timer = setTimeout(() => this.timedOut(reply.id), p.timeoutMs);
      return;
    }
    clearTimeout(p.timer);
    this.pending.delete(reply.id);
    if (reply.t === 'done') p.resolve({ rows: reply.rows ?? [], rowCount: reply.rowCount ?? 0 });
    else p.reject(Object.assign(new Error(String(reply.error['message'])), reply.error));
  }

  private timedOut(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    if (this.dataDir === null) {
      this.pending.delete(id);
      p.reject(statementTimedOut(p.timeoutMs));
      return;
    }
    this.restart(`a statement ran past the ${p.timeoutMs} ms statement timeout`, id);
  }

  /**
   * Replaces the worker. The statement `culprit` (if any) fails with the timeout error; started
   * statements and those of open transactions fail as restarted; the others are replayed in order.
   */
  private restart(reason: string, culprit: number | null): void {
    if (this.closed) return;
    const now = Date.now();
    // Only crashes count: timeouts are the caller's doing, and the store must always come back from them.
    if (culprit === null) this.restarts = [...this.restarts.filter((at) => now - at < RESTART_WINDOW_MS), now];
    if (this.restarts.length > MAX_RESTARTS) {
      // A worker that dies on every start (a broken data folder) must not spin: stop and fail everything.
      this.logger.error(`the embedded store crashed ${this.restarts.length} times in a minute (${reason}); giving up`);
      this.closed = true;
      void this.worker.terminate();
      for (const p of this.pending.values()) p.reject(storeRestarted(reason));
      this.pending.clear();
      return;
    }
    this.logger.warn(`restarting the embedded store: ${reason}`);
    const old = this.worker;
    const inFlight = [...this.pending.values()];
    this.pending.clear();
    this.spawn();
    void old.terminate();
    const replay: Pending[] = [];
    for (const p of inFlight) {
      clearTimeout(p.timer);
      if (p.op.id === culprit) p.reject(statementTimedOut(p.timeoutMs));
      // A statement that started may have had effects; a transaction's statement lost its transaction.
      else if (p.started || (p.op.t !== 'begin' && 'tx' in p.op && p.op.tx !== undefined)) {
        p.reject(storeRestarted(reason));
      } else replay.push(p);
    }
    this.opened = false;
    this.call({ t: 'open', dataDir: this.dataDir, init: PGLITE_SESSION_SETTINGS }, 0).then(
      () => (this.opened = true),
      (err: Error) => this.logger.error(`the embedded store did not reopen: ${err.message}`),
    );
    for (const p of replay) {
      const { id: _id, ...body } = p.op;
      this.call(body as OpBody, p.timeoutMs).then(p.resolve, p.reject);
    }
  }
}

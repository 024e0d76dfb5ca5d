/** A request from the main thread to the PGlite worker. `tx` marks the statements of one transaction. */
export type WorkerOp =
  | { id: number; t: 'open'; dataDir: string | null; init: string }
  | { id: number; t: 'query'; sql: string; params: unknown[]; tx?: number; lane?: string }
  | { id: number; t: 'exec'; sql: string }
  | { id: number; t: 'begin'; tx: number; lane?: string }
  | { id: number; t: 'commit' | 'rollback'; tx: number }
  | { id: number; t: 'close' };

/** What the worker reports: an operation started, finished or failed. */
export type WorkerReply =
  | { t: 'start'; id: number }
  | { t: 'done'; id: number; rows?: unknown[]; rowCount?: number }
  | { t: 'fail'; id: number; error: Record<string, unknown> };

/** Where the worker loads PGlite and pgvector from (resolved by the main thread). */
export interface WorkerPaths {
  pglite: string;
  vector: string;
}

/**
 * The body of the PGlite worker thread. It runs from its source text (`new Worker(…, { eval: true })`),
 * which works the same from TypeScript under jest, from the compiled build and from the benches, with
 * no extra file to ship. So it must be self-contained: no imports, no helpers from outside this
 * function, only `require` of what `workerData` names.
 *
 * It serialises everything: one operation at a time, and while a transaction is open only that
 * transaction's operations run (the single PGlite connection behaves like one pooled PostgreSQL
 * connection). Waiting operations are taken account by account (their `lane`): next comes the oldest
 * operation of the lane served longest ago, so one tenant's queued statements (a large search's fan-out)
 * delay another's by one statement, not by all of them; within a lane, arrival order. Before each
 * operation it reports `start`, so the main thread can time the statement that is actually running.
 */
export function pgliteWorkerMain(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, receiveMessageOnPort, workerData } =
    require('node:worker_threads') as typeof import('node:worker_threads');
  const paths = workerData as WorkerPaths;
  const { PGlite } = require(paths.pglite) as typeof import('@electric-sql/pglite');
  const { vector } = require(paths.vector) as typeof import('@electric-sql/pglite-pgvector');
  const port = parentPort!;
  let pg: import('@electric-sql/pglite').PGlite | null = null;
  let openTx: number | null = null;
  let busy = false;
  const queue: WorkerOp[] = [];
  // When each lane with waiting operations was last served (a counter); a lane not in it was not yet.
  const servedAt = new Map<string, number>();
  let served = 0;
  const laneOf = (op: WorkerOp): string => ('lane' in op && op.lane) || '';
  /** The index of the operation to run next, or -1 when none may run now. */
  const next = (): number => {
    if (openTx !== null) return queue.findIndex((op) => 'tx' in op && op.tx === openTx);
    let best = -1;
    let bestAt = Infinity;
    for (let i = 0; i < queue.length; i += 1) {
      const at = servedAt.get(laneOf(queue[i]!)) ?? 0;
      if (at < bestAt) {
        best = i;
        bestAt = at;
        if (at === 0) break;
      }
    }
    return best;
  };

  const db = (): import('@electric-sql/pglite').PGlite => {
    if (!pg) throw new Error('the embedded store is not open');
    return pg;
  };
  const run = async (op: WorkerOp): Promise<{ rows?: unknown[]; rowCount?: number }> => {
    switch (op.t) {
      case 'open':
        pg = await PGlite.create(op.dataDir ?? undefined, { extensions: { vector } });
        await pg.exec(op.init);
        return {};
      case 'query': {
        const r = await db().query(op.sql, op.params);
        return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
      }
      case 'exec':
        await db().exec(op.sql);
        return {};
      case 'begin':
        await db().query('BEGIN');
        openTx = op.tx;
        return {};
      case 'commit':
      case 'rollback':
        openTx = null;
        await db().query(op.t === 'commit' ? 'COMMIT' : 'ROLLBACK');
        return {};
      case 'close':
        if (pg && !pg.closed) await pg.close();
        return {};
    }
  };
  const describe = (err: unknown): Record<string, unknown> => {
    const e = (err ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = { message: err instanceof Error ? err.message : String(err) };
    const keys = ['name', 'code', 'detail', 'hint', 'severity', 'constraint', 'table', 'column', 'schema', 'position'];
    for (const key of keys) {
      if (typeof e[key] === 'string' || typeof e[key] === 'number') out[key] = e[key];
    }
    return out;
  };
  /** Takes the messages not yet delivered: they are waiting too. */
  const receive = (): void => {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) queue.push(m.message as WorkerOp);
  };
  const pump = (): void => {
    if (busy) return;
    // An operation runs within the microtasks of its own delivery, so without this the queue would hold one
    // operation and arrival order would decide.
    receive();
    const at = next();
    if (at < 0) return;
    const op = queue.splice(at, 1)[0]!;
    const lane = laneOf(op);
    // Nobody else waits: the history is dropped, so it holds only lanes with work waiting or running.
    if (queue.length === 0) servedAt.clear();
    // The running operation's lane has had its turn, also when it was taken alone: forgetting that let the
    // account whose statement ran on an idle thread go first again among the statements that came meanwhile.
    // A transaction is one turn of its lane: its begin is stamped, its later operations only keep the stamp.
    if (openTx === null || !servedAt.has(lane)) servedAt.set(lane, (served += 1));
    busy = true;
    port.postMessage({ t: 'start', id: op.id });
    run(op)
      .then(
        (r) => finish({ t: 'done', id: op.id, ...r }),
        (err: unknown) => finish({ t: 'fail', id: op.id, error: describe(err) }),
      )
      .finally(pump);
  };
  /**
   * Ends the running operation. With nobody waiting the thread is idle and the turns taken so far concern
   * nobody: they are dropped before the answer goes out, since what the caller sends on it may arrive before
   * this thread looks again, and a kept turn would put the caller's next statement after a newcomer's.
   */
  const finish = (reply: WorkerReply): void => {
    busy = false;
    receive();
    if (queue.length === 0) servedAt.clear();
    port.postMessage(reply);
  };
  port.on('message', (op: WorkerOp) => {
    queue.push(op);
    pump();
  });
}

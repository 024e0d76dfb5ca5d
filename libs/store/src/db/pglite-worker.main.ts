/** A request from the main thread to the PGlite worker. `tx` marks the statements of one transaction. */
export type WorkerOp =
  | { id: number; t: 'open'; dataDir: string | null; init: string }
  | { id: number; t: 'query'; sql: string; params: unknown[]; tx?: number }
  | { id: number; t: 'exec'; sql: string }
  | { id: number; t: 'begin' | 'commit' | 'rollback'; tx: number }
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
 * It serialises everything: one operation at a time, in arrival order, and while a transaction is
 * open only that transaction's operations run (the single PGlite connection behaves like one pooled
 * PostgreSQL connection). Before each operation it reports `start`, so the main thread can time the
 * statement that is actually running.
 */
export function pgliteWorkerMain(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const paths = workerData as WorkerPaths;
  const { PGlite } = require(paths.pglite) as typeof import('@electric-sql/pglite');
  const { vector } = require(paths.vector) as typeof import('@electric-sql/pglite-pgvector');
  const port = parentPort!;
  let pg: import('@electric-sql/pglite').PGlite | null = null;
  let openTx: number | null = null;
  let busy = false;
  const queue: WorkerOp[] = [];

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
  const pump = (): void => {
    if (busy) return;
    const at = openTx === null ? 0 : queue.findIndex((op) => 'tx' in op && op.tx === openTx);
    if (at < 0 || at >= queue.length) return;
    const op = queue.splice(at, 1)[0]!;
    busy = true;
    port.postMessage({ t: 'start', id: op.id });
    run(op)
      .then(
        (r) => port.postMessage({ t: 'done', id: op.id, ...r }),
        (err: unknown) => port.postMessage({ t: 'fail', id: op.id, error: describe(err) }),
      )
      .finally(() => {
        busy = false;
        pump();
      });
  };
  port.on('message', (op: WorkerOp) => {
    queue.push(op);
    pump();
  });
}

import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { eventually } from '@app/testing';
import { PgDb } from './pg.db';
import { PgliteWorkerDb } from './pglite-worker.db';

const BASE = process.env.MUNINN_TEST_DATABASE_URL;

// docs/limits-and-security.md, "A client that goes away": a statement whose caller stops waiting (QueryOptions.signal).
(BASE ? describe : describe.skip)('a statement whose caller stops waiting, on PostgreSQL', () => {
  let db: PgDb;
  let watcher: Client;
  beforeAll(async () => {
    db = new PgDb(BASE as string, 2, 60_000);
    watcher = new Client({ connectionString: BASE });
    await watcher.connect();
  });
  afterAll(async () => {
    await db?.close();
    await watcher?.end();
  });
  /** Server processes running the statement tagged `tag`. */
  const running = async (tag: string) =>
    (
      await watcher.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1`,
        [`%${tag}%`],
      )
    ).rows[0]!.n;

  it('is cancelled by the server when the signal aborts; the pool goes on serving', async () => {
    const tag = `cancel-${randomUUID()}`;
    const stop = new AbortController();
    const sleeping = db.query(`SELECT pg_sleep(30) /* ${tag} */`, [], { signal: stop.signal });
    await eventually(async () => (await running(tag)) === 1, { ms: 5000, pollMs: 20 });
    stop.abort(new Error('withdrawn by its caller'));
    await expect(sleeping).rejects.toThrow('withdrawn by its caller');
    // Not left to run its 30 s (nor the 60 s statement timeout): the server stopped it.
    await eventually(async () => (await running(tag)) === 0, { ms: 5000, pollMs: 20 });
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(
      (await db.query<{ one: number }>('SELECT 1 AS one', [], { signal: new AbortController().signal })).rows,
    ).toEqual([{ one: 1 }]);
  });

  it('is not sent when its signal has already aborted; a statement whose signal never aborts answers as usual', async () => {
    const tag = `never-${randomUUID()}`;
    const gone = new AbortController();
    gone.abort(new Error('already gone'));
    await expect(db.query(`SELECT pg_sleep(30) /* ${tag} */`, [], { signal: gone.signal })).rejects.toThrow(
      'already gone',
    );
    expect(await running(tag)).toBe(0);
    const kept = new AbortController();
    const r = await db.query<{ n: number }>('SELECT 2 AS n', [], { signal: kept.signal });
    expect(r.rows).toEqual([{ n: 2 }]);
    kept.abort(); // after its answer: nothing to cancel, and nothing else is
    expect((await db.query<{ n: number }>('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
  });
});

describe('a statement whose caller stops waiting, on PGlite', () => {
  let db: PgliteWorkerDb;
  beforeAll(async () => {
    db = await PgliteWorkerDb.open('memory://', { statementTimeoutMs: 60_000 });
  }, 60_000);
  afterAll(() => db?.close());

  it('answers its caller at once; the store serves the next statement after it', async () => {
    const stop = new AbortController();
    const long = db.query('SELECT count(*) AS n FROM generate_series(1, 3000000)', [], { signal: stop.signal });
    stop.abort(new Error('withdrawn by its caller'));
    await expect(long).rejects.toThrow('withdrawn by its caller');
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

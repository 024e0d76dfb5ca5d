import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelError } from '@app/kernel';
import { Db, openStore } from '@app/store';
import { createTestDatabase, storeModes, TestDatabase } from '@app/testing';

// A statement long enough to pass any timeout below on either store (PGlite needs ~1 s per 1e6 rows here).
const RUNAWAY = 'SELECT count(*) FROM generate_series(1, 5000000000) g WHERE g::text ~ $1';
const TIMEOUT_MS = 400;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof KernelError ? err.code : `not a KernelError: ${(err as Error).message}`;
  }
  return 'resolved';
}

describe.each(storeModes())('statement timeout (store: %s)', (store) => {
  let db: Db;
  let dir: string;
  let pg: TestDatabase | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'muninn-timeouts-'));
    if (store === 'postgres') pg = await createTestDatabase(process.env.MUNINN_TEST_DATABASE_URL!);
    db = await openStore({ databaseUrl: pg?.url ?? null, dataDir: dir, statementTimeoutMs: TIMEOUT_MS });
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await db.query(`INSERT INTO t VALUES (1, 'kept')`);
  }, 120000);

  afterAll(async () => {
    await db.close();
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops a runaway statement with DEADLINE_EXCEEDED, never a raw database error', async () => {
    expect(await codeOf(db.query(RUNAWAY, ['x']))).toBe('DEADLINE_EXCEEDED');
    // The store answers again, with its data.
    expect((await db.query<{ v: string }>('SELECT v FROM t WHERE id = 1')).rows).toEqual([{ v: 'kept' }]);
  });

  it('keeps the event loop turning while the statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    await codeOf(db.query(RUNAWAY, ['y']));
    clearInterval(timer);
    // On the calling thread (the former PGlite set-up) no timer could fire until the statement ended.
    expect(ticks).toBeGreaterThan(0);
  });

  it('answers statements queued behind a runaway one', async () => {
    const runaway = codeOf(db.query(RUNAWAY, ['z']));
    const queued = Promise.all([1, 2, 3].map((n) => db.query<{ n: number }>('SELECT $1::int AS n', [n])));
    expect(await runaway).toBe('DEADLINE_EXCEEDED');
    expect((await queued).map((r) => r.rows[0]!.n)).toEqual([1, 2, 3]);
  });

  it('rolls back a transaction whose statement timed out, and the next transaction works', async () => {
    const failed = db.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (2, 'lost')`);
      await tx.query(RUNAWAY, ['w']);
    });
    expect(await codeOf(failed)).toBe('DEADLINE_EXCEEDED');
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (3, 'committed')`);
    });
    expect((await db.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id)).toEqual([1, 3]);
  });

  it('lets a transaction opt out of the timeout (migrations)', async () => {
    const out = await db.transaction(
      (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM generate_series(1, 300000)'),
      {
        statementTimeoutMs: 0,
      },
    );
    expect(out.rows[0]!.n).toBe(300000);
  });
});

import { PgliteDb } from './pglite.db';
import { streamInTransaction } from './stream-in-transaction';

describe('streamInTransaction', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await PgliteDb.open('memory://');
    await db.query('CREATE TABLE t (n int)');
    await db.query('INSERT INTO t SELECT generate_series(1, 5)');
  }, 60_000);
  afterAll(() => db?.close());

  /** Reads the rows one statement each, inside the transaction; `seen` records how far the reader got. */
  function reader(seen: { read: number; closed: boolean }) {
    return async function* (tx: Parameters<Parameters<typeof streamInTransaction>[2]>[0]) {
      try {
        for (let n = 1; n <= 5; n++) {
          const { rows } = await tx.query<{ n: number }>('SELECT n FROM t WHERE n = $1', [n]);
          seen.read = n;
          yield rows[0].n;
        }
      } finally {
        seen.closed = true;
      }
    };
  }

  it('hands out every line in order, one ahead at most, and ends the transaction with them', async () => {
    const seen = { read: 0, closed: false };
    const got: number[] = [];
    for await (const n of streamInTransaction(db, {}, reader(seen))) {
      got.push(n);
      // The reader waits for the consumer: it has read at most the line after this one.
      expect(seen.read).toBeLessThanOrEqual(n + 1);
    }
    expect(got).toEqual([1, 2, 3, 4, 5]);
    expect(seen.closed).toBe(true);
    // The connection is free again (PGlite's one connection would wait behind an open transaction).
    expect((await db.query('SELECT count(*)::int AS c FROM t')).rows).toEqual([{ c: 5 }]);
  });

  it('stops reading when the consumer stops, and frees the connection before it returns', async () => {
    const seen = { read: 0, closed: false };
    for await (const n of streamInTransaction(db, {}, reader(seen))) {
      if (n === 2) break;
    }
    expect(seen.read).toBeLessThanOrEqual(3);
    expect(seen.closed).toBe(true);
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('rethrows a failed read to the consumer, after the lines before it', async () => {
    const got: number[] = [];
    const failing = async function* (tx: Parameters<Parameters<typeof streamInTransaction>[2]>[0]) {
      yield 1;
      await tx.query('SELECT * FROM no_such_table');
    };
    await expect(
      (async () => {
        for await (const n of streamInTransaction(db, {}, failing)) got.push(n);
      })(),
    ).rejects.toThrow(/no_such_table/);
    expect(got).toEqual([1]);
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

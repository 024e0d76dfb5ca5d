import { PgliteWorkerDb } from './pglite-worker.db';

// docs/limits-and-security.md, "The embedded store's statements, account by account".
describe("the embedded store's one connection, account by account (PGlite on its thread)", () => {
  let db: PgliteWorkerDb;
  let account: string | undefined;
  beforeAll(async () => {
    db = await PgliteWorkerDb.open('memory://', { statementTimeoutMs: 60_000, workAccount: () => account });
  }, 60_000);
  afterAll(() => db?.close());

  /** Sends `sql` as `who`'s statement and notes the order in which the answers come. */
  const send = (who: string | undefined, sql: string, finished: string[], label: string) => {
    account = who;
    return db.query(sql).then(() => finished.push(label));
  };

  /**
   * A first statement that runs long enough for every statement sent after it to reach the thread before it
   * ends: the order is chosen among the statements the thread has seen, and a short one could end before the
   * test had sent the rest.
   */
  const FIRST = 'SELECT count(*) FROM generate_series(1, 3000000)';

  it("takes another account's statement after one of the first account's, not after all of its queued ones", async () => {
    const finished: string[] = [];
    // Five of A's statements wait before B's one (a large search's fan-out, say); one at a time either way.
    const sent = [1, 2, 3, 4, 5].map((i) =>
      send('a', i === 1 ? FIRST : 'SELECT count(*) FROM generate_series(1, 200000)', finished, `a${i}`),
    );
    sent.push(send('b', 'SELECT 1', finished, 'b'));
    await Promise.all(sent);
    // In arrival order B's answer came last; now right after the statement that was running.
    expect(finished).toEqual(['a1', 'b', 'a2', 'a3', 'a4', 'a5']);
  });

  it('keeps arrival order within an account, and takes the waiting accounts in turn', async () => {
    const finished: string[] = [];
    const sent = [
      send('a', FIRST, finished, 'a1'),
      send('a', 'SELECT 1', finished, 'a2'),
      send('a', 'SELECT 1', finished, 'a3'),
      send('b', 'SELECT 1', finished, 'b1'),
      send('b', 'SELECT 1', finished, 'b2'),
      send(undefined, 'SELECT 1', finished, 'none'),
    ];
    await Promise.all(sent);
    expect(finished).toEqual(['a1', 'b1', 'none', 'a2', 'b2', 'a3']);
  });

  it("counts a statement the idle thread took alone as its account's turn", async () => {
    const finished: string[] = [];
    const sent = [send('a', FIRST, finished, 'a1')];
    // The thread has taken A's first by itself before the rest is sent. It used to forget that turn (it dropped
    // the history when nobody else waited), and A's second went before B's first: two failed CI runs of the
    // cases above, whose first statement the thread sometimes took alone.
    await new Promise((resolve) => setTimeout(resolve, 100));
    sent.push(send('a', 'SELECT 1', finished, 'a2'), send('b', 'SELECT 1', finished, 'b1'));
    await Promise.all(sent);
    expect(finished).toEqual(['a1', 'b1', 'a2']);
  });

  it("runs a transaction whole once it began, whatever the other accounts' statements waiting", async () => {
    const finished: string[] = [];
    account = 'a';
    let other: Promise<unknown> = Promise.resolve();
    await db.transaction(async (t) => {
      await t.query('CREATE TEMP TABLE IF NOT EXISTS lane_probe (n int)');
      other = send('b', 'SELECT 1', finished, 'b');
      await t.query('INSERT INTO lane_probe VALUES (1)');
      finished.push('a-insert');
    });
    await other;
    expect(finished).toEqual(['a-insert', 'b']);
  });
});

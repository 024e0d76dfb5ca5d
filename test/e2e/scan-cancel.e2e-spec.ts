// docs/limits-and-security.md, "A client that goes away": a grep whose client disconnects has its scan
// statement cancelled on PostgreSQL. Over real HTTP (gateway → BullMQ → retriever → PostgreSQL): the test
// holds the nodes table locked so the scan waits in the server; the client drops its connection; the
// gateway withdraws the job, the retriever aborts it, and the server cancels the statement, long before
// the lock is let go, the request's deadline or the statement timeout (60 s here).
import { Client } from 'pg';
import { droppableRequest, eventually, startTestApp, TestApp } from '@app/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(process.env.MUNINN_TEST_DATABASE_URL ? describe : describe.skip)('a grep whose client goes away (PostgreSQL)', () => {
  let app: TestApp;
  let locker: Client;
  let watcher: Client;
  /** The retriever's grep statements the server is running (or holding at the lock); the text is cut at 1 kB. */
  const scans = async () =>
    (
      await watcher.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE state = 'active' AND query LIKE 'WITH sized AS (SELECT uri, context_type, row_number()%'`,
      )
    ).rows[0]!.n;

  beforeAll(async () => {
    app = await startTestApp({ store: 'postgres', env: { MUNINN_STATEMENT_TIMEOUT_MS: '60000' } });
    const w = await app.request('POST', '/api/v1/content/write', {
      body: { uri: 'viking://resources/notes/a.md', content: 'a needle in a haystack', mode: 'create', wait: true },
    });
    expect(w.status).toBe(200);
    locker = new Client({ connectionString: app.config.store.databaseUrl as string });
    watcher = new Client({ connectionString: app.config.store.databaseUrl as string });
    await Promise.all([locker.connect(), watcher.connect()]);
  }, 60_000);
  afterAll(async () => {
    await locker?.query('ROLLBACK').catch(() => undefined);
    await Promise.all([locker?.end(), watcher?.end()]);
    await app?.close();
  });

  it('cancels the scan statement once the client is gone; a grep that stays is answered', async () => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE');
    const sent = droppableRequest(`${app.url}/api/v1/search/grep`, { uri: 'viking://', pattern: 'needle' });
    // The scan reached the server and waits for the lock.
    await eventually(async () => (await scans()) === 1, { ms: 10_000, pollMs: 50 });
    sent.drop();
    expect(await sent.ended).not.toBe('answered');
    // The server no longer runs it, though the lock is still held (before: it waited for the lock, then ran).
    await eventually(async () => (await scans()) === 0, { ms: 5000, pollMs: 50 });
    await sleep(200);
    expect(await scans()).toBe(0);
    await locker.query('ROLLBACK');

    const g = await app.request('POST', '/api/v1/search/grep', { body: { uri: 'viking://', pattern: 'needle' } });
    expect(g.status).toBe(200);
    expect(g.body.result.matches.map((m: { uri: string }) => m.uri)).toEqual(['viking://resources/notes/a.md']);
  });
});

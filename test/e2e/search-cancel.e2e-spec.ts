// docs/limits-and-security.md, "A client that goes away": a grep or a find whose client disconnects has its
// statement cancelled on PostgreSQL. Over real HTTP (gateway → BullMQ → retriever → PostgreSQL): the test
// holds the nodes table locked so the statement waits in the server; the client drops its connection; the
// gateway withdraws the job, the retriever aborts it, and the server cancels the statement, long before
// the lock is let go, the request's deadline or the statement timeout (60 s here).
import { Client } from 'pg';
import { droppableRequest, eventually, startTestApp, TestApp } from '@app/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(process.env.MUNINN_TEST_DATABASE_URL ? describe : describe.skip)(
  'a search whose client goes away (PostgreSQL)',
  () => {
    let app: TestApp;
    let locker: Client;
    let watcher: Client;
    /** Statements of the app the server holds at the test's lock (only the app's searches touch `nodes` then). */
    const waiting = async () =>
      (
        await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND backend_type = 'client backend' AND state = 'active'
           AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        )
      ).rows[0]!.n;

    /**
     * Sends `body` to `route` while `nodes` is locked, drops the client once its statement waits at the
     * lock, and checks the server stops running it with the lock still held; then the same request, sent
     * by a client that stays, is answered once the lock goes.
     */
    async function droppedWhileLocked(route: string, body: Record<string, unknown>) {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE');
      try {
        const sent = droppableRequest(`${app.url}${route}`, body);
        await eventually(async () => (await waiting()) === 1, { ms: 10_000, pollMs: 50 });
        sent.drop();
        expect(await sent.ended).not.toBe('answered');
        // The server no longer runs it, though the lock is still held (before: it waited for the lock, then ran).
        await eventually(async () => (await waiting()) === 0, { ms: 5000, pollMs: 50 });
        await sleep(200);
        expect(await waiting()).toBe(0);
      } finally {
        await locker.query('ROLLBACK');
      }
      const answered = await app.request('POST', route, { body });
      expect(answered.status).toBe(200);
      return answered.body.result;
    }

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
      const result = await droppedWhileLocked('/api/v1/search/grep', { uri: 'viking://', pattern: 'needle' });
      expect(result.matches.map((m: { uri: string }) => m.uri)).toEqual(['viking://resources/notes/a.md']);
    });

    it("cancels the find's search statement once the client is gone; a find that stays is answered", async () => {
      const find = { query: 'needle haystack', limit: 5 };
      // The view's term statistics are read once and remembered (shared reads, not cancelled): read them
      // now, so the find that is dropped has only its search statement left to run.
      expect((await app.request('POST', '/api/v1/search/find', { body: find })).status).toBe(200);
      const result = await droppedWhileLocked('/api/v1/search/find', find);
      expect(result.resources.map((r: { uri: string }) => r.uri)).toContain('viking://resources/notes/a.md');
    });
  },
);

import { Queue } from 'bullmq';
import { Client } from 'pg';
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  eventually,
  freePort,
  requestTo,
  startAppProcess,
  startTestApp,
  TestApp,
  TestDatabase,
  TestRequest,
  TestResponse,
  waitHealthy,
} from '@app/testing';
import { redisOptions } from '@app/queue';

// docs/limits-and-security.md, "Tenant data on deletion and in MCP" (removals and the indexer): while a
// user's removal holds its account's rows, that account's index and extraction jobs are put back (delayed,
// no attempt counted) instead of holding the retriever's or the extractor's only worker, so another
// account's write becomes searchable and its commit extracted meanwhile. Separate gateway, retriever and
// extractor processes on one PostgreSQL store (on PGlite one connection serialises everything; nothing
// waits there).
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const ROOT = 'root-key-tenant-removal-0123456789';
/** The advisory lock class of an account's rows (libs/store tenant-rows-lock). */
const TENANT_ROWS = 4242091;

/** Removals holding an account's rows now (seen from any connection to the store). */
const removalHoldsLock = async (client: Client) =>
  (
    await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND mode = 'ExclusiveLock' AND granted",
      [TENANT_ROWS],
    )
  ).rows[0].n;

type Call = (method: string, path: string, key: string, body?: unknown) => Promise<TestResponse>;

/** Accounts `a` (its admin and a user, carol) and `b`; their admins' keys. */
async function tenants(call: Call, a = 'alpha', b = 'beta'): Promise<{ alpha: string; beta: string }> {
  const account = async (id: string) => {
    const r = await call('POST', '/api/v1/admin/accounts', ROOT, { account_id: id, admin_user_id: 'boss' });
    expect(r.status).toBe(200);
    return r.body.result.user_key as string;
  };
  const alpha = await account(a);
  const beta = await account(b);
  const carol = await call('POST', `/api/v1/admin/accounts/${a}/users`, alpha, { user_id: 'carol', role: 'user' });
  expect(carol.status).toBe(200);
  return { alpha, beta };
}

/**
 * carol's removal from `account`, held mid-way: it takes the account's rows (the tenant lock) and then waits
 * for her user row, which `blocker` holds until `release()` (then the removal's answer).
 */
async function heldRemoval(call: Call, key: string, blocker: Client, account = 'alpha') {
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query("SELECT 1 FROM users WHERE account_id = $1 AND user_id = 'carol' FOR UPDATE", [account]);
  const removal = call('DELETE', `/api/v1/admin/accounts/${account}/users/carol`, key);
  let done = false;
  void removal.then(
    () => (done = true),
    () => undefined,
  );
  await eventually(async () => (await removalHoldsLock(blocker)) === 1, { ms: 10_000, pollMs: 100 });
  return {
    running: () => !done,
    release: async () => {
      await blocker.query('ROLLBACK');
      return removal;
    },
  };
}

const write = async (call: Call, key: string, uri: string, content: string) =>
  expect((await call('POST', '/api/v1/content/write', key, { uri, content, mode: 'create' })).status).toBe(200);

const settled = <T>(check: () => Promise<T | null | undefined | false>, ms = 60_000) =>
  eventually(check, { ms, pollMs: 200, retryErrors: true });

suite("a removal of an account's rows and the indexer (real processes)", () => {
  let db: TestDatabase;
  let prefix: string;
  let api: TestRequest;
  const procs: AppProcess[] = [];
  let blocker: Client;
  let extractorEnv: Record<string, string>;

  const call = (method: string, path: string, key: string, body?: unknown) => api(method, path, { key, body });
  const found = async (key: string, word: string, file: string) => {
    const r = await call('POST', '/api/v1/search/find', key, { query: word, limit: 5 });
    return r.status === 200 && r.body.result.resources.some((h: { uri: string }) => h.uri.endsWith(file));
  };
  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    const port = await freePort();
    api = requestTo(`http://127.0.0.1:${port}`);
    prefix = `removal-${port}-${Date.now()}`;
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL as string,
      MUNINN_QUEUE_PREFIX: prefix,
      MUNINN_ROOT_API_KEY: ROOT,
      // The removal below waits on a row this test holds; the store's 5 s would end it (and, before the
      // change, an index job waiting for the removal) before the test has looked.
      MUNINN_STATEMENT_TIMEOUT_MS: '90000',
    };
    procs.push(startAppProcess('gateway', env));
    await waitHealthy(`http://127.0.0.1:${port}`);
    procs.push(startAppProcess('retriever', { ...env, MUNINN_WORKER_CONCURRENCY: '1' }));
    extractorEnv = env;
    blocker = new Client({ connectionString: db.url });
  }, 240_000);

  afterAll(async () => {
    await blocker?.end().catch(() => undefined);
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await db?.drop();
  });

  it("another account's write is searchable while a removal runs; the removed account's job waits delayed, then lands", async () => {
    const { alpha, beta } = await tenants(call);
    // Both workers warmed: one write of each account indexed before the removal starts.
    await write(call, alpha, 'viking://resources/warm.md', 'Alpha warm-up note about quokkafern.');
    await write(call, beta, 'viking://resources/warm.md', 'Beta warm-up note about quokkafern.');
    await settled(async () => (await found(alpha, 'quokkafern', 'warm.md')) && found(beta, 'quokkafern', 'warm.md'));

    const removal = await heldRemoval(call, alpha, blocker);

    // alpha's write first (the single worker takes it first), then beta's.
    await write(call, alpha, 'viking://resources/during.md', 'Alpha note written during the removal: wombatlichen.');
    await write(call, beta, 'viking://resources/during.md', 'Beta note written during the removal: wombatlichen.');
    await settled(() => found(beta, 'wombatlichen', 'during.md'), 30_000);
    expect(removal.running()).toBe(true);
    expect(await found(alpha, 'wombatlichen', 'during.md')).toBe(false);

    // alpha's job is put back: delayed, without an attempt counted against its retries.
    const index = new Queue('index', { connection: redisOptions(process.env.REDIS_URL as string), prefix });
    try {
      const delayed = await settled(async () =>
        (await index.getJobs(['delayed'])).find((j) => j.data.accountId === 'alpha'),
      );
      expect(delayed.attemptsMade).toBe(0);

      // The removal goes on once the row is let go; then alpha's write lands, with no failed attempt behind it.
      expect((await removal.release()).status).toBe(200);
      await settled(() => found(alpha, 'wombatlichen', 'during.md'));
      // The file is searchable once its rows are stored; the job completes a moment later (its directory's
      // summary is part of it).
      // The job is read again once its state is `completed`: a copy read just before it completed has no result yet.
      const done = await settled(async () => {
        const job = await index.getJob(delayed.id as string);
        return (await job?.getState()) === 'completed' ? index.getJob(delayed.id as string) : null;
      });
      // Started more than once, yet its run saw no failed attempt before it (the result's `retries`).
      expect(done.attemptsStarted).toBeGreaterThanOrEqual(2);
      expect(done.returnvalue.retries).toBe(0);
    } finally {
      await index.close();
    }
  });

  it("another account's commit is extracted while an account's deletion runs; the deleted account's job waits delayed, then ends", async () => {
    const { alpha: gamma, beta: delta } = await tenants(call, 'gamma', 'delta');
    const commit = async (key: string, id: string) => {
      const m = await call('POST', `/api/v1/sessions/${id}/messages`, key, {
        role: 'user',
        content: `I prefer ${id} tea in the morning.`,
      });
      expect(m.status).toBe(200);
      const r = await call('POST', `/api/v1/sessions/${id}/commit`, key, {});
      expect(r.status).toBe(200);
      return r.body.result.task_id as string;
    };
    const status = async (key: string, task: string) =>
      (await call('GET', `/api/v1/tasks/${task}`, key)).body.result?.status as string | undefined;
    // gamma's commit waits in the queue (no extractor runs yet); a session of gamma's the test will hold.
    const gammaTask = await commit(gamma, 'oolong');
    expect((await call('POST', '/api/v1/sessions/held/messages', gamma, { role: 'user', content: 'hi' })).status).toBe(
      200,
    );

    // gamma's deletion held mid-way: its account row deleted, its rows' lock taken, waiting for the held session.
    const held = new Client({ connectionString: db.url });
    await held.connect();
    const extract = new Queue('extract', { connection: redisOptions(process.env.REDIS_URL as string), prefix });
    try {
      await held.query('BEGIN');
      await held.query("SELECT 1 FROM sessions WHERE account_id = 'gamma' AND session_id = 'held' FOR UPDATE");
      let deleted = false;
      const deletion = call('DELETE', '/api/v1/admin/accounts/gamma', ROOT);
      void deletion.then(
        () => (deleted = true),
        () => undefined,
      );
      await settled(async () => {
        // The held connection is in a transaction, where the activity view is one snapshot: a fresh one each look.
        await held.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await held.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM sessions%'",
        );
        return rows[0].n === 1;
      }, 10_000);

      // One extraction worker: it meets gamma's job first, which is put back rather than holding it.
      procs.push(startAppProcess('extractor', { ...extractorEnv, MUNINN_WORKER_CONCURRENCY: '1' }));
      // The worker has taken gamma's job (and put it back; before the change it waited inside it).
      const gammaJob = await settled(async () => {
        const jobs = await extract.getJobs(['active', 'delayed']);
        return jobs.find((j) => j.data.accountId === 'gamma');
      });
      // delta commits meanwhile: extracted while gamma's deletion still runs.
      const deltaTask = await commit(delta, 'sencha');
      await settled(async () => (await status(delta, deltaTask)) === 'completed', 30_000);
      expect(deleted).toBe(false);
      // Put back about every second while the deletion runs: between its returns it waits delayed.
      const delayed = await settled(async () => {
        const j = await extract.getJob(gammaJob.id as string);
        return j && (await j.getState()) === 'delayed' ? j : null;
      }, 10_000);
      expect(delayed.attemptsMade).toBe(0);

      // The deletion ends; gamma's job comes back, finds its task gone, and ends without a failed attempt.
      await held.query('ROLLBACK');
      expect((await deletion).status).toBe(200);
      // Read again once `completed`, as above: a copy read just before has no result yet.
      const done = await settled(async () => {
        const j = await extract.getJob(gammaJob.id as string);
        return j && (await j.getState()) === 'completed' ? extract.getJob(gammaJob.id as string) : null;
      });
      expect(done.attemptsStarted).toBeGreaterThanOrEqual(2);
      expect(done.returnvalue).toEqual({ status: 'skipped' });
      expect(gammaTask).toEqual(expect.any(String));
    } finally {
      await extract.close();
      await held.end().catch(() => undefined);
    }
  });
});

// In process (MUNINN_TRANSPORT=inprocess) on PostgreSQL the bus starts every index job at once: jobs waiting
// for a removal would each hold one of the store's 10 connections, and a dozen of them every tenant's queries.
suite("a removal of an account's rows and the in-process indexer", () => {
  let app: TestApp;
  let blocker: Client;
  const call = (method: string, path: string, key: string, body?: unknown) =>
    app.request(method, path, { key, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    app = await startTestApp({
      store: 'postgres',
      rootApiKey: ROOT,
      env: { MUNINN_TRANSPORT: 'inprocess', REDIS_URL: 'redis://127.0.0.1:1', MUNINN_STATEMENT_TIMEOUT_MS: '90000' },
    });
    blocker = new Client({ connectionString: app.config.store.databaseUrl as string });
  }, 120_000);
  afterAll(async () => {
    await blocker?.end().catch(() => undefined);
    await app?.close();
  });

  it("another account's writes and searches go on while a removal holds the account's rows; its writes land after", async () => {
    const { alpha, beta } = await tenants(call);
    const find = async (key: string, word: string) =>
      ((await call('POST', '/api/v1/search/find', key, { query: word, limit: 20 })).body.result?.resources ?? []) as {
        uri: string;
      }[];

    const removal = await heldRemoval(call, alpha, blocker);

    // More of alpha's index jobs than the store has connections, then beta's write.
    for (let i = 0; i < 14; i++)
      await write(
        call,
        alpha,
        `viking://resources/during/n${i}.md`,
        `Alpha note ${i} during the removal: wombatlichen.`,
      );
    await write(call, beta, 'viking://resources/during.md', 'Beta note written during the removal: wombatlichen.');
    await eventually(async () => (await find(beta, 'wombatlichen')).some((h) => h.uri.endsWith('/during.md')), {
      ms: 30_000,
      pollMs: 200,
    });
    expect(removal.running()).toBe(true);
    expect(await find(alpha, 'wombatlichen')).toEqual([]);

    expect((await removal.release()).status).toBe(200);
    // The 14 files (the folders that list them match too, once their summaries are refreshed).
    const files = async () => (await find(alpha, 'wombatlichen')).filter((h) => /\/during\/n\d+\.md$/.test(h.uri));
    await eventually(async () => (await files()).length === 14, { ms: 30_000, pollMs: 200 });
  });
});

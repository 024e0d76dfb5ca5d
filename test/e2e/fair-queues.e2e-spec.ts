import { Job, Queue } from 'bullmq';
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  eventually,
  freePort,
  requestTo,
  startAppProcess,
  TestDatabase,
  TestRequest,
  waitHealthy,
} from '@app/testing';
import { redisOptions } from '@app/queue';

// Separate gateway, retriever and extractor processes share one PostgreSQL store, like write-faults.
// The workers start only once both tenants' work is queued, so the order they take it in is the queues'.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const ROOT = 'root-key-fair-queues-0123456789';

const settled = <T>(check: () => Promise<T | null | undefined | false>, ms = 120_000) =>
  eventually(check, { ms, pollMs: 200, retryErrors: true });

suite('fair background queues (real processes)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let url: string;
  let prefix: string;
  const procs: AppProcess[] = [];

  let api: TestRequest;
  const call = (method: string, path: string, key: string, body?: unknown) => api(method, path, { key, body });
  const account = async (id: string) => {
    const r = await call('POST', '/api/v1/admin/accounts', ROOT, { account_id: id, admin_user_id: 'boss' });
    expect(r.status).toBe(200);
    return r.body.result.user_key as string;
  };
  /** The queue's finished jobs in the order the (single) worker took them. */
  const taken = async (name: string): Promise<Job[]> => {
    const q = new Queue(name, { connection: redisOptions(process.env.REDIS_URL as string), prefix });
    try {
      const jobs = await q.getJobs(['completed']);
      return jobs.sort((a, b) => (a.processedOn ?? 0) - (b.processedOn ?? 0));
    } finally {
      await q.close();
    }
  };

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    api = requestTo(url);
    prefix = `fair-${port}-${Date.now()}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL as string,
      MUNINN_QUEUE_PREFIX: prefix,
      MUNINN_ROOT_API_KEY: ROOT,
    };
    procs.push(startAppProcess('gateway', env));
    await waitHealthy(url);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await db?.drop();
  });

  it("one tenant's write and commit run before another tenant's backlog, and the backlog still drains", async () => {
    const alpha = await account('alpha');
    const beta = await account('beta');
    const gamma = await account('gamma');
    for (let i = 0; i < 30; i++) {
      const w = await call('POST', '/api/v1/content/write', alpha, {
        uri: `viking://resources/backlog/f${i}.md`,
        content: `Backlog file ${i} of the alpha tenant.`,
        mode: 'create',
      });
      expect(w.status).toBe(200);
    }
    const commit = async (key: string, id: string, filler = '') => {
      const m = await call('POST', `/api/v1/sessions/${id}/messages/batch`, key, {
        messages: [
          { role: 'user', content: `Session ${id}: I moved to Lisbon and started learning the cello.${filler}` },
          { role: 'assistant', content: 'Lisbon and the cello, noted.' },
        ],
      });
      expect(m.status).toBe(200);
      const c = await call('POST', `/api/v1/sessions/${id}/commit`, key, {});
      expect(c.status).toBe(200);
      return c.body.result.task_id as string;
    };
    for (let s = 0; s < 5; s++) await commit(alpha, `alpha-${s}`);
    // One commit of ~30,000 tokens (120,000 characters) is as much extraction as a few dozen small ones.
    await commit(gamma, 'gamma-big', ' We talked about practice routines at length.'.repeat(2700));
    const note = await call('POST', '/api/v1/content/write', beta, {
      uri: 'viking://resources/mine/note.md',
      content: 'Beta keeps its zanzibarquill notes here.',
      mode: 'create',
    });
    expect(note.status).toBe(200);
    const betaTask = await commit(beta, 'beta-0');

    // Workers that take one job at a time, started after all of it was queued.
    const workers = { ...env, MUNINN_WORKER_CONCURRENCY: '1' };
    procs.push(startAppProcess('retriever', workers), startAppProcess('extractor', workers));

    await settled(async () => {
      const r = await call('POST', '/api/v1/search/find', beta, { query: 'zanzibarquill', limit: 3 });
      return r.status === 200 && r.body.result.resources.some((h: { uri: string }) => h.uri.endsWith('/note.md'));
    });
    await settled(
      async () => (await call('GET', `/api/v1/tasks/${betaTask}`, beta)).body.result?.status === 'completed',
    );

    // Index: beta's write was queued after alpha's 30; at most alpha's first (same priority, earlier) ran before it.
    const indexed = await taken('index');
    const betaWrite = indexed.findIndex((j) => j.data.accountId === 'beta');
    expect(betaWrite).toBeGreaterThanOrEqual(0);
    expect(indexed.slice(0, betaWrite).filter((j) => j.data.accountId === 'alpha').length).toBeLessThanOrEqual(1);
    // Extract: beta's commit was queued after alpha's 5.
    const extracted = await taken('extract');
    const betaCommit = extracted.findIndex((j) => j.data.accountId === 'beta');
    expect(betaCommit).toBeGreaterThanOrEqual(0);
    expect(extracted.slice(0, betaCommit).filter((j) => j.data.accountId === 'alpha').length).toBeLessThanOrEqual(1);

    // Nothing of alpha's is starved: every write is indexed (its outbox entry goes last), every commit completes.
    await settled(
      async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_outbox'))[0].n === 0,
    );
    await settled(
      async () =>
        (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM session_tasks WHERE status <> 'completed'"))[0]
          .n === 0,
    );

    // gamma's one big commit, queued before beta's small one, weighs its archived tokens and ran after it
    // (read once every commit is done: beta's may finish before gamma's has even started).
    const all = await taken('extract');
    const big = all.findIndex((j) => j.data.accountId === 'gamma');
    expect(big).toBeGreaterThan(all.findIndex((j) => j.data.accountId === 'beta'));
    const bigJob = all[big];
    expect(bigJob.data.archivedTokens).toBeGreaterThan(30_000);
    expect(bigJob.opts.priority).toBe(Math.ceil(bigJob.data.archivedTokens / 4000));
  }, 240_000);
});

import { Job, Queue } from 'bullmq';
import { redisOptions } from '@app/queue';
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  freePort,
  OwnRedis,
  startAppProcess,
  TestDatabase,
  waitHealthy,
  waitReady,
  eventually,
} from '@app/testing';

// Separate gateway, retriever and assembler processes share one PostgreSQL store (PGlite is
// single-process), so this suite runs where the CI provides a PostgreSQL server with pgvector.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;

const DEADLINE_MS = 2500;

suite('faults across real processes', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let url: string;
  let gateway: AppProcess;
  let retriever: AppProcess;
  let assembler: AppProcess;
  let extractor: AppProcess;
  let retrieverMetrics: string;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const context = () => post('/api/v1/search/search', { query: 'quokka habitat', mode: 'context' });
  const SURVEY = '# Summary\nQuokka habitat survey.\n\n# ChatLog:\nwe mapped the quokka habitat on Rottnest.';

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL ?? '',
      MUNINN_QUEUE_PREFIX: `faults-${port}`,
      MUNINN_REQUEST_DEADLINE_MS: String(DEADLINE_MS),
      LOG_LEVEL: 'debug',
    };
    gateway = startAppProcess('gateway', env);
    retrieverMetrics = `http://127.0.0.1:${await freePort()}/metrics`;
    retriever = startAppProcess('retriever', { ...env, MUNINN_METRICS_PORT: new URL(retrieverMetrics).port });
    assembler = startAppProcess('assembler', env);
    // /ready also wants an extractor (session commits); this suite does not exercise it otherwise.
    extractor = startAppProcess('extractor', env);
    await waitReady(url);
    for (const [name, text] of [
      ['entities/quokka', 'The quokka lives on Rottnest Island; its habitat is scrubland.'],
      ['entities/wombat', 'Wombats dig burrows in forests.'],
      ['events/quokka-survey', SURVEY],
    ]) {
      const w = await post('/api/v1/content/write', {
        uri: `viking://~/memories/${name}.md`,
        content: text,
        mode: 'create',
        wait: true,
      });
      expect(w.status).toBe(200);
    }
  }, 240000);

  afterAll(async () => {
    await Promise.all([gateway, retriever, assembler, extractor].map((p) => p?.kill('SIGKILL')));
    await db?.drop();
  });

  it("serves the block when every process is up; its request id reaches every worker's JSON logs", async () => {
    const r = await post(
      '/api/v1/search/search',
      { query: 'quokka habitat', mode: 'context' },
      { 'x-request-id': 'ops-trace-0001' },
    );
    expect(r.status).toBe(200);
    const lines = (p: AppProcess) =>
      p
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const tagged = (p: AppProcess) => lines(p).filter((l) => l.requestId === 'ops-trace-0001');
    // The gateway's access line is written once the response is sent: give the pipes a moment.
    await settled(async () => [gateway, retriever, assembler].every((p) => tagged(p).length > 0), 10000).catch(
      () => undefined,
    );
    for (const [app, proc] of [
      ['gateway', gateway],
      ['retriever', retriever],
      ['assembler', assembler],
    ] as const) {
      expect({ app, apps: [...new Set(tagged(proc).map((l) => l.app))] }).toEqual({ app, apps: [app] });
    }
    expect(r.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(
      'viking://user/default/memories/entities/quokka.md',
    );
    expect(r.body.result.stats.retrieval_errors).toBeUndefined();
    // The retriever process counts its query embeddings with the model calls, and shows their circuit closed.
    const metrics = await (await fetch(retrieverMetrics)).text();
    expect(metrics).toMatch(/^muninn_model_calls_total\{[^}]*call="embed",outcome="ok"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^muninn_model_circuit_open\{[^}]*call="embed"[^}]*\} 0$/m);
  });

  it('system/wait counts what the separate retriever process did while it waited (docs/fs-and-mcp.md "system/wait")', async () => {
    const index = new Queue('index', { connection: redisOptions(env.REDIS_URL), prefix: env.MUNINN_QUEUE_PREFIX });
    await index.pause();
    try {
      const w = await post('/api/v1/content/write', {
        uri: 'viking://resources/counted/across.md',
        content: 'indexed by another process\n',
        mode: 'create',
        wait: false,
      });
      expect(w.status).toBe(200);
      const waited = post('/api/v1/system/wait', { timeout: 60 });
      // Ample time for the wait's starting snapshot: the held job can only run after the resume.
      await new Promise((r) => setTimeout(r, 1000));
      await index.resume();
      const r = await waited;
      expect(r.status).toBe(200);
      expect(r.body.result.Embedding.processed).toBeGreaterThanOrEqual(1);
      expect(r.body.result.Embedding).toMatchObject({ error_count: 0, errors: [] });
    } finally {
      await index.resume();
      await index.close();
    }
  });

  it('a killed retriever: the request answers within its deadline with the errors in stats; later requests succeed again', async () => {
    expect(await retriever.kill('SIGKILL')).toBe('SIGKILL');
    const started = Date.now();
    const r = await context();
    const elapsed = Date.now() - started;
    expect(r.status).toBe(200);
    expect(r.body.result.entries).toEqual([]);
    expect(r.body.result.stats.retrieval_errors.length).toBeGreaterThan(0);
    expect(r.body.result.stats.retrieval_errors[0]).toMatch(/^TimeoutError: find job timed out/);
    expect(elapsed).toBeLessThan(DEADLINE_MS + 4000);
    retriever = startAppProcess('retriever', env);
    await settled(async () => (await context()).body.result.entries.length > 0);
  }, 90000);

  it('a killed assembler: the gateway plans from the abstracts and the bodies its search carried, and says so', async () => {
    expect(await assembler.kill('SIGKILL')).toBe('SIGKILL');
    const r = await context();
    expect(r.status).toBe(200);
    // The event's hit carried its body: served whole as the assembler would, with nothing read.
    const survey = r.body.result.entries.find((e: { uri: string }) => e.uri.endsWith('/events/quokka-survey.md'));
    expect(survey).toMatchObject({ detail: 'full', text: SURVEY });
    expect(r.body.result.stats.retrieval_errors.some((e: string) => e.startsWith('AssembleError: '))).toBe(true);
    assembler = startAppProcess('assembler', env);
    await settled(async () => (await context()).body.result.stats.retrieval_errors === undefined);
  }, 90000);

  it('kill -9 of the retriever during heavy requests, then a restart: no find job is replayed after its deadline', async () => {
    const finds = new Queue('find', { connection: redisOptions(env.REDIS_URL), prefix: env.MUNINN_QUEUE_PREFIX });
    try {
      // Heavy requests in flight (some find jobs active), then the worker dies; more requests queue up behind it.
      const inFlight = Array.from({ length: 12 }, () => context());
      await new Promise((r) => setTimeout(r, 150));
      expect(await retriever.kill('SIGKILL')).toBe('SIGKILL');
      // Taken once the process is gone: a job it finished between a stamp taken before the signal and its
      // death (CI saw one) is no replay; only a finish after this can be the restarted worker's.
      const killedAt = Date.now();
      // Readiness notices that nothing consumes `find` any more (liveness does not: the gateway is fine).
      await settled(async () => {
        const r = await fetch(`${url}/ready`);
        return r.status === 503 && ((await r.json()) as { missing: string[] }).missing.includes('find');
      });
      const queued = await Promise.all(Array.from({ length: 6 }, () => context()));
      await Promise.all(inFlight);
      expect(queued.every((r) => r.status === 200 && r.body.result.stats.retrieval_errors?.length > 0)).toBe(true);
      // Every job added so far has passed its deadline (the requests answered at theirs), and those no worker
      // had taken were taken back by the gateway then: none is left waiting for the restarted worker.
      // (Taken back in the background of each answer: looked for until none is left, no worker being up.)
      await settled(async () => {
        const left = await finds.getJobCounts('waiting', 'delayed', 'prioritized');
        return left.waiting + left.delayed + left.prioritized === 0;
      }, 5000);
      const restartedAt = Date.now();
      retriever = startAppProcess('retriever', env);
      await waitReady(url);
      await settled(async () => (await context()).body.result.entries.length > 0);
      await settled(async () => {
        const c = await finds.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(c).every((n) => n === 0);
      }, 60_000);
      const old = (jobs: Job[]) => jobs.filter((j) => j.timestamp < restartedAt);
      // No job added before the restart ran to completion after the kill: each was dropped or failed as stalled.
      const replayed = old(await finds.getJobs(['completed'])).filter((j) => (j.finishedOn ?? 0) > killedAt);
      expect(replayed.map((j) => j.id)).toEqual([]);
    } finally {
      await finds.close();
    }
  }, 120000);
});

suite('Redis outage', () => {
  let redis: OwnRedis;
  let db: TestDatabase;
  let app: AppProcess;
  let url: string;

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    redis = new OwnRedis(await freePort());
    await redis.start();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    app = startAppProcess('standalone', {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
    });
    await waitHealthy(url);
  }, 240000);

  afterAll(async () => {
    await app?.kill('SIGKILL');
    await redis?.kill();
    await db?.drop();
  });

  it('answers 503 in the envelope while Redis is away, without crashing, and recovers when it returns', async () => {
    const ask = () =>
      fetch(`${url}/api/v1/search/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'anything', mode: 'context' }),
      });
    expect((await ask()).status).toBe(200);
    await redis.kill();
    await new Promise((r) => setTimeout(r, 500));
    const down = await ask();
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } });
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(503);
    expect(app.child.exitCode).toBeNull();
    await redis.start();
    await settled(async () => (await ask()).status === 200);
  }, 90000);
});

/** Polls until `check` holds; a failing attempt (a server still away) counts as "not yet". */
const settled = (check: () => Promise<boolean>, ms = 30_000) =>
  eventually(check, { ms, pollMs: 300, retryErrors: true });

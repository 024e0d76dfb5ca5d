import {
  AppProcess,
  buildDist,
  createTestDatabase,
  FakeLlmServer,
  freePort,
  OwnRedis,
  startAppProcess,
  startFakeLlmServer,
  TestDatabase,
  waitHealthy,
  eventually,
} from '@app/testing';

// Separate gateway, retriever and extractor processes share one PostgreSQL store, like write-faults.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;

/** Polls until `check` holds; a failing attempt (a server still away) counts as "not yet". */
const settled = <T>(check: () => Promise<T | null | undefined | false>, ms = 120_000) =>
  eventually(check, { ms, pollMs: 250, retryErrors: true });

const TALK = [
  { role: 'user', content: 'My sister Ottoline is visiting Reykjavik in March.', created_at: '2026-03-02T09:00:00Z' },
  { role: 'assistant', content: 'Lovely, Ottoline will enjoy Reykjavik in March.' },
];

suite('sessions under faults (real processes)', () => {
  let db: TestDatabase;
  let redis: OwnRedis;
  let env: Record<string, string>;
  let llm: FakeLlmServer;
  let url: string;
  let gateway: AppProcess;
  let retriever: AppProcess;
  let extractor: AppProcess;

  const startExtractor = () =>
    startAppProcess('extractor', {
      ...env,
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake',
      MUNINN_EXTRACT_TIMEOUT_S: '60',
      MUNINN_EXTRACT_RETRY_S: '0.1',
    });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const taskDone = (id: string) =>
    settled(async () => {
      const r = await call('GET', `/api/v1/tasks/${id}`);
      return ['completed', 'failed'].includes(r.body.result?.status) ? r.body.result : null;
    });

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    llm = await startFakeLlmServer();
    redis = new OwnRedis(await freePort());
    await redis.start();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      MUNINN_QUEUE_PREFIX: `sfaults-${port}`,
      MUNINN_OUTBOX_GRACE_MS: '500',
      MUNINN_OUTBOX_POLL_MS: '200',
    };
    gateway = startAppProcess('gateway', env);
    retriever = startAppProcess('retriever', env);
    extractor = startExtractor();
    await waitHealthy(url);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([gateway, retriever, extractor].map((p) => p?.kill('SIGKILL')));
    await redis?.kill();
    await llm?.close();
    await db?.drop();
  });

  it('Redis away at commit: a clear 503 and nothing archived; once it is back the commit goes through', async () => {
    llm.respondWith({ status: 500 });
    await call('POST', '/api/v1/sessions/down/messages/batch', { messages: TALK });
    await redis.kill();
    const r = await call('POST', '/api/v1/sessions/down/commit', {});
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('UNAVAILABLE');
    const [s] = await db.query<{ commit_count: number; pending_tokens: number }>(
      "SELECT commit_count, pending_tokens FROM sessions WHERE session_id = 'down'",
    );
    expect(s.commit_count).toBe(0);
    expect(s.pending_tokens).toBeGreaterThan(0);
    expect(await db.query("SELECT 1 FROM session_archives WHERE session_id = 'down'")).toHaveLength(0);
    expect(await db.query("SELECT 1 FROM session_tasks WHERE resource_id = 'down'")).toHaveLength(0);
    expect(await db.query("SELECT 1 FROM messages WHERE session_id = 'down'")).toHaveLength(2);

    await redis.start();
    const ok = await settled(async () => {
      const c = await call('POST', '/api/v1/sessions/down/commit', {});
      return c.status === 200 ? c.body.result : null;
    });
    expect(ok.status).toBe('accepted');
    const t = await taskDone(ok.task_id);
    expect(t.status).toBe('completed');
    // The model answered 500 on each of the job's six attempts: the offline extractor stood in, and said so.
    expect(t.result.extractor).toBe('offline');
    expect(t.result.extractor_fallback_reason).toMatch(/HTTP 500.*, attempt 6$/);
  }, 240_000);

  it('Redis restarted empty after an accepted commit: the task relay re-enqueues the lost job; /ready needs an extractor', async () => {
    await extractor.kill('SIGKILL');
    // Commits need an extractor: without one the gateway is not ready, and says which queue lacks a worker.
    const notReady = await settled(async () => {
      const r = await fetch(`${url}/ready`);
      const body = (await r.json()) as { missing: string[] };
      return r.status === 503 && body.missing.includes('extract') ? body : null;
    });
    expect(notReady.missing).toEqual(expect.arrayContaining(['extract', 'session-idle']));
    await call('POST', '/api/v1/sessions/lost/messages/batch', { messages: TALK });
    const c = (await call('POST', '/api/v1/sessions/lost/commit', {})).body.result;
    expect(c.status).toBe('accepted');
    await redis.kill();
    await redis.start();
    extractor = startExtractor();
    const t = await taskDone(c.task_id);
    expect(t.status).toBe('completed');
  }, 240_000);

  it('an extractor killed mid-extraction: the commit completes once, with no duplicate memories', async () => {
    let calls = 0;
    llm.respondWith(() => {
      calls += 1;
      // The first call hangs (the worker is killed during it); the next ones answer.
      if (calls === 1) return { delayMs: 55_000, text: '{}' };
      return JSON.stringify({
        entities: [
          { category: 'person', name: 'Ottoline', content: 'Sister of the user; visiting Reykjavik in March 2026.' },
        ],
        events: [{ event_name: 'Ottoline visit', summary: 'Ottoline visits Reykjavik in March 2026.', from: 0, to: 1 }],
        overview: '',
      });
    });
    await call('POST', '/api/v1/sessions/crash/messages/batch', { messages: TALK });
    const c = (await call('POST', '/api/v1/sessions/crash/commit', {})).body.result;
    await settled(async () => calls >= 1);
    await extractor.kill('SIGKILL');
    extractor = startExtractor();
    const t = await taskDone(c.task_id);
    expect(t.status).toBe('completed');
    expect(t.result.extractor).toBe('model');
    const files = await db.query<{ uri: string }>(
      "SELECT uri FROM nodes WHERE kind = 'file' AND (uri LIKE '%ottoline_visit-crash_archive_001%' OR uri LIKE '%/entities/person/ottoline.md')",
    );
    expect(files.map((f) => f.uri).sort()).toEqual([...t.result.memory_uris].sort());
    expect(files).toHaveLength(2);
    expect(
      await db.query("SELECT 1 FROM session_tasks WHERE resource_id = 'crash' AND status = 'completed'"),
    ).toHaveLength(1);
    // Findable once indexed.
    await settled(async () => {
      const r = await call('POST', '/api/v1/search/find', {
        query: 'Ottoline Reykjavik',
        target_uri: 'viking://user/default/memories',
        limit: 5,
      });
      return (r.body.result?.memories ?? []).some((h: { uri: string }) =>
        h.uri.endsWith('/entities/person/ottoline.md'),
      );
    });
  }, 240_000);

  it('an extractor killed twice during one task: the task ends failed, saying why, and nothing is written', async () => {
    let calls = 0;
    // Every call hangs: each extractor that takes the job is killed during its model call.
    llm.respondWith(() => {
      calls += 1;
      return { delayMs: 55_000, text: '{}' };
    });
    await call('POST', '/api/v1/sessions/twice/messages/batch', { messages: TALK });
    const c = (await call('POST', '/api/v1/sessions/twice/commit', {})).body.result;
    for (const seen of [1, 2]) {
      // The second call comes once the first kill's stalled job is handed to the next extractor.
      await settled(async () => calls >= seen);
      await extractor.kill('SIGKILL');
      extractor = startExtractor();
    }
    // Without the relay's look at the job, the task stayed running for the day BullMQ keeps a failed job.
    const t = await taskDone(c.task_id);
    expect(t.status).toBe('failed');
    expect(t.error).toBe(
      'The extractor stopped (killed or crashed) while extracting this commit, twice; it is not run a third time.',
    );
    expect(calls).toBe(2);
    expect(await db.query("SELECT 1 FROM nodes WHERE uri LIKE '%twice_archive%'")).toHaveLength(0);
    const archives = (await call('GET', '/api/v1/sessions/twice/context')).body.result;
    expect(archives.stats.failedArchives).toBe(1);
  }, 240_000);
});

import { createMuninnClient } from '@app/client';
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  eventually,
  callMcpTool,
  freePort,
  requestTo,
  startAppProcess,
  TestDatabase,
  TestRequest,
  waitHealthy,
} from '@app/testing';

// docs/limits-and-security.md, "Backlog bounds". A gateway runs alone at first, so nothing is indexed or
// extracted and every write and commit adds to its account's backlog; a retriever and an extractor
// started later drain them.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const ROOT = 'root-key-backlog-bounds-0123456789';
const MAX = 5;
const MAX_COMMITS = 2;

suite('backlog bounds (real processes)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let url: string;
  const procs: AppProcess[] = [];
  let alpha: string;
  let beta: string;

  let api: TestRequest;
  const call = (method: string, path: string, key: string, body?: unknown) => api(method, path, { key, body });
  const write = (key: string, uri: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/api/v1/content/write', key, { uri, content: `note ${uri}`, mode: 'create', ...extra });
  const tool = async (key: string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await callMcpTool(url, key, name, args, meta)).result as {
      isError?: boolean;
      content: { text: string }[];
      _meta?: Record<string, unknown>;
    };
  const pendingRows = async (account: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_outbox WHERE account_id = $1', [account]))[0]!
      .n;
  const openTasks = async (account: string) =>
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM session_tasks WHERE account_id = $1 AND status IN ('pending', 'running')`,
        [account],
      )
    )[0]!.n;
  const commit = async (key: string, id: string) => {
    const m = await call('POST', `/api/v1/sessions/${id}/messages`, key, {
      role: 'user',
      content: `I told ${id} about the cello.`,
    });
    expect(m.status).toBe(200);
    return call('POST', `/api/v1/sessions/${id}/commit`, key, {});
  };
  /**
   * Sends `send(n)` (n = requests admitted so far) until one is refused; the bound's count is remembered
   * for a second per account, so the refusal comes within a few more. Checks the refusal names `limit`.
   */
  const untilRefused = async (
    send: (n: number) => Promise<Awaited<ReturnType<typeof call>>>,
    limit: string,
    max: number,
    variable: string,
  ) => {
    let admitted = 0;
    const refused = await eventually(
      async () => {
        const r = await send(admitted);
        if (r.status === 200) admitted += 1;
        return r.status === 429 ? r : null;
      },
      { ms: 15_000, pollMs: 200 },
    );
    expect(admitted).toBeLessThanOrEqual(10);
    expect(refused.body.error.code).toBe('RESOURCE_EXHAUSTED');
    expect(refused.body.error.message).toContain(variable);
    expect(refused.body.error.details).toMatchObject({ limit, max, retry_after_s: 1 });
    expect(refused.body.error.details.pending).toBeGreaterThanOrEqual(max);
    expect(refused.headers.get('retry-after')).toBe('1');
    return admitted;
  };
  const account = async (id: string) => {
    const r = await call('POST', '/api/v1/admin/accounts', ROOT, { account_id: id, admin_user_id: 'boss' });
    expect(r.status).toBe(200);
    return r.body.result.user_key as string;
  };

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    api = requestTo(url);
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL as string,
      MUNINN_QUEUE_PREFIX: `backlog-${port}-${Date.now()}`,
      MUNINN_ROOT_API_KEY: ROOT,
      MUNINN_ACCOUNT_MAX_PENDING_INDEX: String(MAX),
      MUNINN_ACCOUNT_MAX_PENDING_COMMITS: String(MAX_COMMITS),
    };
    procs.push(startAppProcess('gateway', env));
    await waitHealthy(url);
    alpha = await account('alpha');
    beta = await account('beta');
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await db?.drop();
  });

  it("refuses an account's writes while its unindexed files reach the bound, names the limit, and lets other work through", async () => {
    for (let i = 0; i < MAX; i++) expect((await write(alpha, `viking://resources/a${i}.md`)).status).toBe(200);
    const extra = await untilRefused(
      (n) => write(alpha, `viking://resources/x${n}.md`),
      'index_backlog',
      MAX,
      'MUNINN_ACCOUNT_MAX_PENDING_INDEX',
    );
    // Refused before anything was stored: the file does not exist and the backlog did not grow.
    const rows = await pendingRows('alpha');
    expect(rows).toBe(MAX + extra);
    expect((await call('GET', `/api/v1/content/read?uri=viking://resources/x${extra}.md`, alpha)).status).toBe(404);

    // The account sees its backlog against the bounds (counted up to the bound, as the refusal saw it).
    const { backlog } = (await call('GET', '/api/v1/system/status', alpha)).body.result;
    expect(backlog).toMatchObject({ max_index_pending: MAX, commits_pending: 0, max_commits_pending: MAX_COMMITS });
    expect(backlog.index_pending).toBeGreaterThanOrEqual(MAX);

    // Every write path of the account is refused the same way.
    const batch = await call('POST', '/api/v1/content/batch-write', alpha, {
      root_uri: 'viking://resources/b',
      operations: [{ uri: 'viking://resources/b/1.md', content: 'one' }],
      wait: false,
    });
    expect([batch.status, batch.body.error.details.limit]).toEqual([429, 'index_backlog']);
    const mkdir = await call('POST', '/api/v1/fs/mkdir', alpha, { uri: 'viking://resources/dir' });
    expect([mkdir.status, mkdir.body.error.details.limit]).toEqual([429, 'index_backlog']);
    const mcp = await tool(alpha, 'write', { uri: 'viking://resources/m.md', content: 'x', mode: 'create' });
    expect(mcp.isError).toBe(true);
    expect(mcp.content[0]!.text).toContain('Index backlog full');
    expect(await pendingRows('alpha')).toBe(rows);

    // Operators see the refusals by limit: the write, the batch, the mkdir and the MCP call.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const refused = /^muninn_refusals_total\{limit="index_backlog",status="429"\} (\d+)$/m.exec(metrics);
    expect(Number(refused?.[1])).toBe(4);

    // Reading, deleting and another tenant's writes are not held back.
    expect((await call('GET', '/api/v1/content/read?uri=viking://resources/a0.md', alpha)).status).toBe(200);
    expect((await call('DELETE', '/api/v1/fs?uri=viking://resources/a1.md', alpha)).status).toBe(200);
    expect((await write(beta, 'viking://resources/b0.md')).status).toBe(200);
  });

  it('an account\'s own backlog bound (docs/limits-and-security.md, "Per-account limits"): tighter for a trial, off for a large customer', async () => {
    const trial = await account('trial');
    const big = await account('big');
    const setLimits = (id: string, body: unknown) => call('PUT', `/api/v1/admin/accounts/${id}/limits`, ROOT, body);
    expect((await setLimits('trial', { max_pending_index: 2 })).status).toBe(200);
    expect((await setLimits('big', { max_pending_index: 0 })).status).toBe(200);
    await untilRefused(
      (n) => write(trial, `viking://resources/t${n}.md`),
      'index_backlog',
      2,
      "the limit is 2 (the account's own max_pending_index)",
    );
    // Past the deployment's bound of 5, the large customer's writes still pass.
    for (let i = 0; i < MAX + 3; i++) expect((await write(big, `viking://resources/g${i}.md`)).status).toBe(200);
    expect(await pendingRows('big')).toBe(MAX + 3);
    const backlogOf = async (key: string) => (await call('GET', '/api/v1/system/status', key)).body.result.backlog;
    expect((await backlogOf(trial)).max_index_pending).toBe(2);
    expect((await backlogOf(big)).max_index_pending).toBeNull();
  });

  it('an upload link refused for the backlog stays usable, and writes pass again once a retriever drains it', async () => {
    const link = await tool(alpha, 'add_resource', { path: '/home/boss/guide.md' });
    expect(link.isError).toBeFalsy();
    const uploadUrl = /(http:\/\/\S+\/api\/v1\/resources\/temp_upload\?token=[A-Za-z0-9_-]+)/.exec(
      link.content[0]!.text,
    )![1]!;
    const upload = () => {
      const form = new FormData();
      form.append('file', new Blob(['# Guide\nPress the big red button.\n']), 'guide.md');
      return fetch(uploadUrl, { method: 'POST', body: form });
    };
    const held = await upload();
    expect([held.status, ((await held.json()) as any).error.details.limit]).toEqual([429, 'index_backlog']);

    // The generated client, told to, waits out 429s (Retry-After) and sends the write again; untold, it
    // returns the 429.
    let attempts = 0;
    const client = (retries429: number) =>
      createMuninnClient({
        baseUrl: url,
        apiKey: alpha,
        retries429,
        fetch: (r) => {
          attempts += 1;
          return fetch(r);
        },
      });
    const body = {
      uri: 'viking://resources/patient.md',
      content: 'Written once there was room.',
      mode: 'create' as const,
    };
    const untold = await client(0).POST('/api/v1/content/write', { body });
    expect([untold.response.status, attempts]).toEqual([429, 1]);
    const patient = client(120).POST('/api/v1/content/write', { body });

    procs.push(startAppProcess('retriever', env));
    await eventually(async () => (await pendingRows('alpha')) === 0, { ms: 120_000, pollMs: 500, retryErrors: true });
    await eventually(
      async () => (await call('GET', '/api/v1/system/status', alpha)).body.result.backlog.index_pending === 0,
      { ms: 15_000, pollMs: 300 },
    );
    const after = await eventually(
      async () => {
        const r = await upload();
        return r.status === 429 ? null : r;
      },
      { ms: 15_000, pollMs: 300 },
    );
    expect([after.status, ((await after.json()) as any).result.uri]).toEqual([200, 'viking://resources/guide.md']);
    const waited = await patient;
    expect([waited.response.status, waited.data?.result.created]).toEqual([200, true]);
    expect(attempts).toBeGreaterThan(2);
    const indexed = await write(alpha, 'viking://resources/late.md', { wait: true });
    expect({ status: indexed.status, body: indexed.body }).toMatchObject({
      status: 200,
      body: { result: { vector_status: 'complete' } },
    });
  }, 180_000);
  it("refuses an account's commits while its commits awaiting extraction reach the bound; the messages stay live", async () => {
    for (let i = 0; i < MAX_COMMITS; i++) expect((await commit(alpha, `s${i}`)).status).toBe(200);
    const extra = await untilRefused(
      (n) => commit(alpha, `t${n}`),
      'commit_backlog',
      MAX_COMMITS,
      'MUNINN_ACCOUNT_MAX_PENDING_COMMITS',
    );
    expect(await openTasks('alpha')).toBe(MAX_COMMITS + extra);
    expect((await call('GET', '/api/v1/system/status', alpha)).body.result.backlog.commits_pending).toBe(MAX_COMMITS);
    // Nothing was archived: the refused session's message is still live.
    const live = await call('GET', `/api/v1/sessions/t${extra}/messages`, alpha);
    expect([live.status, live.body.result.length]).toEqual([200, 1]);
    // MCP remember stores all or nothing: refused, it leaves no session behind.
    const before = (await call('GET', '/api/v1/sessions', alpha)).body.result.length;
    const tea = { messages: [{ role: 'user', content: 'I like green tea.' }] };
    const keyed = { 'muninn/idempotency_key': 'remember-tea' };
    const remember = await tool(alpha, 'remember', tea, keyed);
    expect(remember.isError).toBe(true);
    expect(remember.content[0]!.text).toContain('Commit backlog full');
    expect((await call('GET', '/api/v1/sessions', alpha)).body.result.length).toBe(before);
    // Another tenant commits.
    expect((await commit(beta, 'b0')).status).toBe(200);

    procs.push(startAppProcess('extractor', env));
    await eventually(async () => (await openTasks('alpha')) === 0, { ms: 120_000, pollMs: 500, retryErrors: true });
    const after = await eventually(
      async () => {
        const r = await call('POST', `/api/v1/sessions/t${extra}/commit`, alpha, {});
        return r.status === 429 ? null : r;
      },
      { ms: 15_000, pollMs: 300 },
    );
    expect([after.status, typeof after.body.result.task_id]).toEqual([200, 'string']);
    // The refused remember wrote nothing, so its key was freed: its retry with the key is stored now (before, it
    // had written a message, then removed its session, and the retry was answered "Commit backlog full" for a day).
    const retried = await eventually(
      async () => {
        const r = await tool(alpha, 'remember', tea, keyed);
        return r.content[0]!.text.includes('Commit backlog full') ? null : r;
      },
      { ms: 15_000, pollMs: 300 },
    );
    expect([retried.isError ?? false, retried._meta?.['muninn/idempotent_replayed'] ?? false]).toEqual([false, false]);
    expect(retried.content[0]!.text).toContain('Stored 1 message(s)');
  }, 180_000);
});

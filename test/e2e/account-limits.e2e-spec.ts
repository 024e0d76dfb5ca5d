import { Queue } from 'bullmq';
import { redisOptions } from '@app/queue';
import { Db, STORE_DB } from '@app/store';
import {
  eventually,
  FakeLlmServer,
  startFakeLlmServer,
  startTestApp,
  storeModes,
  TestApp,
  untilSlots,
} from '@app/testing';
import { context, seedMany } from './context-support';

// Per-account limits (docs/limits-and-security.md, "Per-account limits"): the root key gives one account
// its own requests per minute, model tokens per day and storage quota; the account's admin reads them;
// every process applies them, and other accounts keep the deployment's.
const ROOT = 'root-key-for-account-limits-0123456789';
const NARWHAL = 'viking://resources/narwhal.md';
const DEPLOYMENT = {
  requests_per_minute: 1000,
  model_tokens_per_day: 5000,
  max_nodes: 1000,
  max_content_bytes: 1024 * 1024,
  max_sessions: 100,
  max_users: 50,
  max_pending_index: 10_000,
  max_pending_commits: 1000,
  max_inflight: 16,
  max_scans: 3,
  max_large_searches: 4,
  max_large_bodies: 5,
};

describe.each(storeModes())('per-account limits (store: %s)', (store) => {
  let app: TestApp;
  let fake: FakeLlmServer;
  const keys: Record<string, string> = {};
  const limitsPath = (account: string) => `/api/v1/admin/accounts/${account}/limits`;
  const put = (account: string, body: unknown, key = ROOT) => app.request('PUT', limitsPath(account), { key, body });
  const status = async (account: string) =>
    (await app.request('GET', '/api/v1/system/status', { key: keys[account] })).body.result;

  beforeAll(async () => {
    fake = await startFakeLlmServer({
      fallback: { text: `* narwhal fact source: ${NARWHAL}`, usage: { prompt_tokens: 40, completion_tokens: 2 } },
    });
    app = await startTestApp({
      store,
      rootApiKey: ROOT,
      env: {
        MUNINN_RATE_ACCOUNT_PER_MINUTE: String(DEPLOYMENT.requests_per_minute),
        MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY: String(DEPLOYMENT.model_tokens_per_day),
        MUNINN_ACCOUNT_MAX_NODES: String(DEPLOYMENT.max_nodes),
        MUNINN_ACCOUNT_MAX_CONTENT_BYTES: String(DEPLOYMENT.max_content_bytes),
        MUNINN_ACCOUNT_MAX_SESSIONS: String(DEPLOYMENT.max_sessions),
        MUNINN_ACCOUNT_MAX_USERS: String(DEPLOYMENT.max_users),
        MUNINN_ACCOUNT_MAX_PENDING_INDEX: String(DEPLOYMENT.max_pending_index),
        MUNINN_ACCOUNT_MAX_PENDING_COMMITS: String(DEPLOYMENT.max_pending_commits),
        MUNINN_ACCOUNT_MAX_INFLIGHT: String(DEPLOYMENT.max_inflight),
        MUNINN_ACCOUNT_MAX_SCANS: String(DEPLOYMENT.max_scans),
        MUNINN_ACCOUNT_MAX_LARGE_SEARCHES: String(DEPLOYMENT.max_large_searches),
        MUNINN_ACCOUNT_MAX_LARGE_BODIES: String(DEPLOYMENT.max_large_bodies),
        LLM_BASE_URL: fake.url,
        LLM_MODEL: 'chat-model',
      },
    });
    for (const id of ['plan-a', 'plan-b', 'plan-c']) {
      const r = await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: id, admin_user_id: 'boss' },
      });
      expect(r.status).toBe(200);
      keys[id] = r.body.result.user_key;
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it("reads the deployment's limits and the account's own; only root sets them; a bad value is 400 naming the field", async () => {
    const fresh = await app.request('GET', limitsPath('plan-c'), { key: ROOT });
    expect(fresh.body.result).toEqual({ account_id: 'plan-c', own: {}, limits: DEPLOYMENT });
    // The account's admin reads its own limits, not another account's, and cannot raise them.
    expect((await app.request('GET', limitsPath('plan-c'), { key: keys['plan-c'] })).status).toBe(200);
    expect((await app.request('GET', limitsPath('plan-b'), { key: keys['plan-c'] })).status).toBe(403);
    expect((await put('plan-c', { requests_per_minute: 100_000 }, keys['plan-c'])).status).toBe(403);
    for (const [body, field] of [
      [{ requests_per_minute: 0 }, 'requests_per_minute'],
      [{ requests_per_minute: 1.5 }, 'requests_per_minute'],
      [{ max_nodes: 9 }, 'max_nodes'],
      [{ max_content_bytes: 'a lot' }, 'max_content_bytes'],
      [{ model_tokens_per_day: 1e13 }, 'model_tokens_per_day'],
      [{ max_sessions: 0 }, 'max_sessions'],
      [{ max_pending_commits: -1 }, 'max_pending_commits'],
      [{ max_seats: 5 }, 'max_seats'],
    ] as const) {
      const r = await put('plan-c', body);
      expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message).toContain(field);
    }
    expect((await put('no-such-account', { max_nodes: 50 })).status).toBe(404);
    // Nothing was stored by the refusals.
    expect((await app.request('GET', limitsPath('plan-c'), { key: ROOT })).body.result.own).toEqual({});
    // Set, then replaced whole: a limit left out or null takes the deployment's value again.
    const set = await put('plan-c', { max_nodes: 50, model_tokens_per_day: 0 });
    expect(set.body.result).toEqual({
      account_id: 'plan-c',
      own: { max_nodes: 50, model_tokens_per_day: 0 },
      limits: { ...DEPLOYMENT, max_nodes: 50, model_tokens_per_day: 0 },
    });
    expect((await status('plan-c')).model.max_tokens_per_day).toBeNull();
    const reset = await put('plan-c', { max_nodes: null });
    expect(reset.body.result).toEqual({ account_id: 'plan-c', own: {}, limits: DEPLOYMENT });
    expect((await status('plan-c')).storage.max_nodes).toBe(DEPLOYMENT.max_nodes);
  });

  it("an account's own requests per minute: 429 past it, naming it; another account goes on; cleared, it is let in", async () => {
    expect((await put('plan-a', { requests_per_minute: 3 })).body.result.limits.requests_per_minute).toBe(3);
    const ls = (account: string) =>
      app.request('GET', '/api/v1/fs/ls?uri=viking://resources', { key: keys[account] }).then((r) => r);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await ls('plan-a'));
    const codes = answers.map((r) => r.status);
    expect(codes.filter((c) => c === 200).length).toBeLessThanOrEqual(3);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body.error.details).toMatchObject({ limit: 'account', per_minute: 3 });
    expect(refused.body.error.message).toContain('3 requests per minute per account');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The deployment's limit still holds for the other accounts.
    for (let i = 0; i < 5; i++) expect((await ls('plan-b')).status).toBe(200);
    // Cleared: the account is back on the deployment's 1,000 a minute, its count kept.
    await put('plan-a', {});
    expect((await ls('plan-a')).status).toBe(200);
  });

  it("an account's own storage quota: the write past it is 413 naming the account's own max_nodes", async () => {
    await put('plan-b', { max_nodes: 10 });
    let refused = null;
    for (let i = 0; i < 12 && !refused; i++) {
      const r = await app.request('POST', '/api/v1/content/write', {
        key: keys['plan-b'],
        body: { uri: `viking://resources/q/f${i}.md`, content: 'x', mode: 'create' },
      });
      if (r.status !== 200) refused = r;
    }
    expect(refused?.status).toBe(413);
    expect(refused?.body.error.details).toMatchObject({ limit: 'account_nodes', max: 10 });
    expect(refused?.body.error.message).toContain("the account's own max_nodes");
    expect((await status('plan-b')).storage).toMatchObject({ nodes: 10, max_nodes: 10 });
    // Another account writes past ten under the deployment's quota.
    for (let i = 0; i < 12; i++) {
      const r = await app.request('POST', '/api/v1/content/write', {
        key: keys['plan-c'],
        body: { uri: `viking://resources/q/f${i}.md`, content: 'x', mode: 'create' },
      });
      expect(r.status).toBe(200);
    }
  });

  it("an account's own sessions and users: the one past it is 413 naming the account's own limit; root and its admin read its usage", async () => {
    await put('plan-b', { max_sessions: 2, max_users: 2 });
    const as = { key: keys['plan-b'] };
    for (const id of ['s-1', 's-2'])
      expect((await app.request('POST', '/api/v1/sessions', { ...as, body: { session_id: id } })).status).toBe(200);
    const third = await app.request('POST', '/api/v1/sessions', { ...as, body: { session_id: 's-3' } });
    expect([third.status, third.body.error.details]).toEqual([
      413,
      { limit: 'account_sessions', max: 2, used: 2, requested: 1 },
    ]);
    expect(third.body.error.message).toContain("the account's own max_sessions");
    expect((await status('plan-b')).storage.max_sessions).toBe(2);
    // The first admin counts: one more user fits, the next does not.
    const register = (user: string) =>
      app.request('POST', '/api/v1/admin/accounts/plan-b/users', { ...as, body: { user_id: user } });
    expect((await register('u1')).status).toBe(200);
    const over = await register('u2');
    expect([over.status, over.body.error.details.max]).toEqual([413, 2]);
    expect(over.body.error.message).toContain("the account's own max_users");
    // Root (and the account's admin) read the same figures without a key of the account's users.
    const usage = await app.request('GET', '/api/v1/admin/accounts/plan-b/usage', { key: ROOT });
    expect(usage.body.result).toMatchObject({
      account_id: 'plan-b',
      users: { users: 2, max_users: 2 },
      storage: { nodes: 10, max_nodes: DEPLOYMENT.max_nodes, sessions: 2, max_sessions: 2 },
      backlog: { max_index_pending: DEPLOYMENT.max_pending_index },
      model: { max_tokens_per_day: DEPLOYMENT.model_tokens_per_day },
    });
    const { users: _users, account_id: _id, ...figures } = usage.body.result;
    const { storage, backlog, model } = await status('plan-b');
    expect(figures).toEqual({ storage, backlog, model });
    expect((await app.request('GET', '/api/v1/admin/accounts/plan-b/usage', as)).status).toBe(200);
    expect((await app.request('GET', '/api/v1/admin/accounts/plan-b/usage', { key: keys['plan-c'] })).status).toBe(403);
    expect((await app.request('GET', '/api/v1/admin/accounts/nobody/usage', { key: ROOT })).status).toBe(404);
    // Another account keeps the deployment's bounds.
    expect(
      (await app.request('POST', '/api/v1/sessions', { key: keys['plan-c'], body: { session_id: 's-3' } })).status,
    ).toBe(200);
  });

  it("an account's own backlog bounds are the ones its status reports (0: unbounded)", async () => {
    await put('plan-c', { max_pending_index: 7, max_pending_commits: 0 });
    expect((await status('plan-c')).backlog).toMatchObject({ max_index_pending: 7, max_commits_pending: null });
    expect((await status('plan-a')).backlog).toMatchObject({
      max_index_pending: DEPLOYMENT.max_pending_index,
      max_commits_pending: DEPLOYMENT.max_pending_commits,
    });
    await put('plan-c', {});
  });

  it("an account's own model budget: spent at its value while the deployment's budget still serves the others", async () => {
    await put('plan-a', { model_tokens_per_day: 1 });
    const memory = { [NARWHAL]: 'The narwhal is a toothed whale with one long spiral tusk.' };
    for (const account of ['plan-a', 'plan-c']) await seedMany(app, { key: keys[account] }, memory);
    const digest = async (account: string) =>
      (await context(app, { query: 'narwhal tusk', rewrite: true }, { key: keys[account] })).body.result.stats.rewrite;
    expect(await digest('plan-a')).toBe('ok');
    // The account's own budget of 1 token is spent by that one call; plan-c's 5,000 are not.
    expect(await digest('plan-a')).toBe('failed');
    expect(await digest('plan-c')).toBe('ok');
    expect((await status('plan-a')).model).toEqual({ tokens_today: 42, max_tokens_per_day: 1 });
    expect((await status('plan-c')).model).toEqual({ tokens_today: 42, max_tokens_per_day: 5000 });
    expect(fake.requests).toHaveLength(2);
    // The extractor applies the same budget: plan-a's commit makes no model call and says why; plan-c's
    // commit asks the model (whose answer, a digest, is no extraction: the offline extractor takes over).
    const commit = async (account: string) => {
      const as = { key: keys[account] };
      await app.request('POST', '/api/v1/sessions/s1/messages', {
        ...as,
        body: { role: 'user', content: 'I keep bees.' },
      });
      const { task_id } = (await app.request('POST', '/api/v1/sessions/s1/commit', { ...as, body: {} })).body.result;
      return eventually(async () => {
        const t = (await app.request('GET', `/api/v1/tasks/${task_id}`, as)).body.result;
        return t?.status === 'completed' ? t.result : null;
      });
    };
    expect((await commit('plan-a')).extractor_fallback_reason).toMatch(/model budget for today is spent/);
    expect((await commit('plan-c')).extractor_fallback_reason).toMatch(/unusable model answer/);
    expect(fake.requests).toHaveLength(3);
  });

  it("a suspended account's acknowledged commit is extracted without the model, and says why", async () => {
    const made = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'plan-s', admin_user_id: 'boss' },
    });
    const as = { key: made.body.result.user_key as string };
    const db = app.nest.get<Db>(STORE_DB);
    const queue = new Queue('extract', {
      connection: redisOptions(process.env.REDIS_URL ?? ''),
      prefix: app.config.queues.prefix,
    });
    const calls = fake.requests.length;
    let taskId = '';
    // The commit is acknowledged while the extract queue holds its job; the account is suspended before it runs.
    await queue.pause();
    try {
      await app.request('POST', '/api/v1/sessions/s3/messages', {
        ...as,
        body: { role: 'user', content: 'I keep bees on the roof.' },
      });
      taskId = (await app.request('POST', '/api/v1/sessions/s3/commit', { ...as, body: {} })).body.result.task_id;
      const s = await app.request('PUT', '/api/v1/admin/accounts/plan-s/suspension', {
        key: ROOT,
        body: { suspended: true, reason: 'invoice 7' },
      });
      expect(s.status).toBe(200);
    } finally {
      await queue.resume();
      await queue.close();
    }
    const task = await eventually(async () => {
      const { rows } = await db.query<{ status: string; result: any }>(
        'SELECT status, result FROM session_tasks WHERE task_id = $1',
        [taskId],
      );
      return rows[0]?.status === 'completed' ? rows[0] : null;
    });
    const result = typeof task.result === 'string' ? JSON.parse(task.result) : task.result;
    expect(result.extractor).toBe('offline');
    expect(result.extractor_fallback_reason).toMatch(/^the account is suspended since .*: no model calls$/);
    expect(result.memories_extracted.memory_write).toBeGreaterThan(0);
    expect(fake.requests.length).toBe(calls);
  });

  it('the OpenAPI document states the bounds of every limit', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    const route = doc.paths['/api/v1/admin/accounts/{accountId}/limits'];
    expect(Object.keys(route)).toEqual(expect.arrayContaining(['get', 'put']));
    const schema = doc.components.schemas.AccountLimitsDto.properties;
    expect(schema.requests_per_minute).toMatchObject({ minimum: 1, maximum: 10_000_000 });
    expect(schema.max_nodes).toMatchObject({ minimum: 10, maximum: 1_000_000_000 });
    expect(schema.max_content_bytes).toMatchObject({ minimum: 1024 });
    expect(schema.model_tokens_per_day).toMatchObject({ minimum: 0, maximum: 1_000_000_000_000 });
    expect(schema.max_sessions).toMatchObject({ minimum: 1, maximum: 100_000_000 });
    expect(schema.max_users).toMatchObject({ minimum: 1, maximum: 10_000_000 });
    expect(schema.max_pending_index).toMatchObject({ minimum: 0, maximum: 10_000_000 });
    expect(schema.max_pending_commits).toMatchObject({ minimum: 0, maximum: 1_000_000 });
    expect(schema.max_inflight).toMatchObject({ minimum: 1, maximum: 10_000 });
    expect(schema.max_scans).toMatchObject({ minimum: 1, maximum: 1000 });
    expect(schema.max_large_searches).toMatchObject({ minimum: 1, maximum: 1000 });
    expect(schema.max_large_bodies).toMatchObject({ minimum: 1, maximum: 1000 });
  });

  it("an account's own max_inflight: requests past it wait in the account's line, and a lowered one is kept", async () => {
    const { request } = await import('node:http');
    const url = new URL(app.url);
    expect((await put('plan-b', { max_inflight: 2 })).status).toBe(200);
    const hold = () => {
      const held = request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/v1/content/write',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': keys['plan-b'] },
      });
      held.on('error', () => undefined);
      held.write('{"uri":');
      return held;
    };
    const settle = () => new Promise((r) => setTimeout(r, 300));
    const first = hold();
    const second = hold();
    try {
      await untilSlots(app.request, 'running', 2);
      // The third waits for a slot (the line holds it, no refusal); another account is served meanwhile.
      let answered: number | null = null;
      const third = app
        .request('GET', '/api/v1/system/status', { key: keys['plan-b'] })
        .then((r) => (answered = r.status));
      await untilSlots(app.request, 'waiting', 1);
      expect(answered).toBeNull();
      expect((await app.request('GET', '/api/v1/system/status', { key: keys['plan-a'] })).status).toBe(200);
      // Lowered to 1 with two running: a finished request gives its slot up rather than pass it on...
      expect((await put('plan-b', { max_inflight: 1 })).status).toBe(200);
      first.destroy();
      await untilSlots(app.request, 'running', 1);
      await settle();
      expect(answered).toBeNull();
      // ...and once the line is within its limit, the next finished request passes its slot to the waiter.
      second.destroy();
      await third;
      expect(answered).toBe(200);
    } finally {
      first.destroy();
      second.destroy();
    }
    expect((await put('plan-b', {})).status).toBe(200);
  });
});

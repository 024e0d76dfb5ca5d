import { parseMcpBody, startTestApp, storeModes, TestApp } from '@app/testing';
import { rawRequest } from './hostile-support';

// Suspending an account (docs/limits-and-security.md, "Suspending an account"): root suspends a tenant
// with a reason; every key of the account (admin and user, REST, MCP, upload links) is refused at once
// with that reason while its data, limits and trail are kept; other tenants go on; resuming restores it.
const ROOT = 'root-key-for-account-suspension-0123456789';
const NOTE = 'viking://resources/kept.md';

describe.each(storeModes())('account suspension (store: %s)', (store) => {
  let app: TestApp;
  const keys: Record<string, string> = {};
  const suspension = (account: string, body: unknown, key = ROOT) =>
    app.request('PUT', `/api/v1/admin/accounts/${account}/suspension`, { key, body });
  const read = (key: string) => app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(NOTE)}`, { key });
  const mcp = async (key: string) => {
    const r = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'add_resource', arguments: { path: '/tmp/up.md' } },
      }),
    });
    return { status: r.status, text: await r.text(), contentType: r.headers.get('content-type') };
  };
  const trail = async (account: string) =>
    (await app.request('GET', `/api/v1/admin/accounts/${account}/audit`, { key: ROOT })).body.result.events as any[];

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_KEY_CACHE_TTL_MS: '300000' } });
    for (const id of ['paused', 'running']) {
      const r = await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: id, admin_user_id: 'boss' },
      });
      keys[id] = r.body.result.user_key;
      const u = await app.request('POST', `/api/v1/admin/accounts/${id}/users`, {
        key: keys[id],
        body: { user_id: 'worker' },
      });
      keys[`${id}/worker`] = u.body.result.user_key;
      const w = await app.request('POST', '/api/v1/content/write', {
        key: keys[id],
        body: { uri: NOTE, content: `note of ${id}`, mode: 'create', wait: true },
      });
      expect(w.status).toBe(200);
    }
  }, 120_000);
  afterAll(() => app?.close());

  it('refuses every key of a suspended account at once, keeps its data, and serves it again once resumed', async () => {
    // The keys were just used, so each gateway's key cache holds them: the suspension must drop them.
    expect((await read(keys['paused/worker'])).status).toBe(200);
    const mcpBefore = await mcp(keys['paused/worker']);
    const link = /temp_upload\?token=([A-Za-z0-9_-]+)/.exec(
      parseMcpBody(mcpBefore.contentType, mcpBefore.text)[0].result.content[0].text,
    )![1]!;

    const s = await suspension('paused', { suspended: true, reason: 'invoice 42 unpaid' });
    expect(s.status).toBe(200);
    expect(s.body.result).toMatchObject({ account_id: 'paused', suspended: { reason: 'invoice 42 unpaid' } });
    const since = s.body.result.suspended.since as string;
    expect(Date.parse(since)).toBeGreaterThan(Date.now() - 60_000);

    for (const key of [keys['paused/worker'], keys.paused]) {
      const r = await read(key);
      expect([r.status, r.body.error.code, r.body.error.details]).toEqual([
        403,
        'PERMISSION_DENIED',
        { account_id: 'paused', suspended: true, since, reason: 'invoice 42 unpaid' },
      ]);
      expect(r.body.error.message).toContain('invoice 42 unpaid');
    }
    const find = await app.request('POST', '/api/v1/search/find', {
      key: keys['paused/worker'],
      body: { query: 'note' },
    });
    expect(find.status).toBe(403);
    // The account's admin cannot act on its own account either, nor lift the suspension.
    expect((await app.request('GET', '/api/v1/admin/accounts/paused/users', { key: keys.paused })).status).toBe(403);
    expect((await suspension('paused', { suspended: false }, keys.paused)).status).toBe(403);
    const viaMcp = await mcp(keys['paused/worker']);
    expect(viaMcp.status).toBe(403);
    // An upload link minted before the suspension holds no grant any more.
    const up = await rawRequest(app.url, 'POST', `/api/v1/resources/temp_upload?token=${link}`, {
      headers: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': '3' },
      body: Buffer.from('x\r\n'),
    });
    expect(up.status).toBe(401);

    // Another tenant goes on; root still sees the suspended one.
    expect((await read(keys['running/worker'])).body.result).toBe('note of running');
    const listed = (await app.request('GET', '/api/v1/admin/accounts', { key: ROOT })).body.result as any[];
    expect(Object.fromEntries(listed.map((a) => [a.account_id, a.suspended]))).toEqual({
      paused: { since, reason: 'invoice 42 unpaid' },
      running: null,
    });

    // Suspended again: the reason is replaced, the time kept.
    const again = await suspension('paused', { suspended: true, reason: 'abuse review' });
    expect(again.body.result.suspended).toEqual({ since, reason: 'abuse review' });
    expect((await read(keys.paused)).body.error.message).toContain('abuse review');

    const resumed = await suspension('paused', { suspended: false });
    expect(resumed.body.result).toEqual({ account_id: 'paused', suspended: null });
    expect((await read(keys['paused/worker'])).body.result).toBe('note of paused');
    // Resuming an account in service changes and records nothing.
    expect((await suspension('paused', { suspended: false })).status).toBe(200);
    const events = await trail('paused');
    expect(events.slice(0, 3).map((e) => [e.action, e.details])).toEqual([
      ['account.resume', {}],
      ['account.suspend', { reason: 'abuse review' }],
      ['account.suspend', { reason: 'invoice 42 unpaid' }],
    ]);
    expect(events[3].action).toBe('user.create');
  });

  it('bad bodies are 400 naming the field; an unknown account is 404; neither changes or records anything', async () => {
    const before = (await trail('running')).length;
    const cases: Array<[unknown, string]> = [
      [{}, 'suspended'],
      [{ suspended: 'yes' }, 'suspended'],
      [{ suspended: 1 }, 'suspended'],
      [{ suspended: true, reason: 'r'.repeat(501) }, 'reason'],
      [{ suspended: true, reason: 7 }, 'reason'],
      [{ suspended: false, reason: 'why' }, 'reason'],
      [{ suspended: true, until: 'tomorrow' }, 'until'],
    ];
    for (const [body, field] of cases) {
      const r = await suspension('running', body);
      expect([JSON.stringify(body).slice(0, 60), r.status, r.body.error.code]).toEqual([
        JSON.stringify(body).slice(0, 60),
        400,
        'INVALID_ARGUMENT',
      ]);
      expect(r.body.error.message).toContain(field);
    }
    expect((await suspension('no-such-account', { suspended: true })).status).toBe(404);
    expect((await read(keys['running/worker'])).status).toBe(200);
    expect(await trail('running')).toHaveLength(before);
  });

  it('lists accounts a page at a time in id order, and reads one account by id (root, or its own admin)', async () => {
    for (const id of ['page-1', 'page-2', 'page-3'])
      await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: id, admin_user_id: 'boss' },
      });
    const page = async (query: string) => {
      const r = await app.request('GET', `/api/v1/admin/accounts${query}`, { key: ROOT });
      expect(r.status).toBe(200);
      return (r.body.result as { account_id: string }[]).map((a) => a.account_id);
    };
    expect(await page('?limit=2')).toEqual(['page-1', 'page-2']);
    expect(await page('?limit=2&after=page-2')).toEqual(['page-3', 'paused']);
    expect(await page('?limit=2&after=paused')).toEqual(['running']);
    expect(await page('?after=running')).toEqual([]);
    expect(await page('')).toEqual(['page-1', 'page-2', 'page-3', 'paused', 'running']);
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=two', 'limit'],
      [`?after=${'a'.repeat(129)}`, 'after'],
    ]) {
      const r = await app.request('GET', `/api/v1/admin/accounts${query}`, { key: ROOT });
      expect([query.slice(0, 20), r.status, r.body.error.code]).toEqual([query.slice(0, 20), 400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message).toContain(field);
    }
    const one = await app.request('GET', '/api/v1/admin/accounts/running', { key: ROOT });
    expect(one.body.result).toMatchObject({ account_id: 'running', user_count: 2, suspended: null });
    expect(
      (await app.request('GET', '/api/v1/admin/accounts/running', { key: keys.running })).body.result.account_id,
    ).toBe('running');
    expect((await app.request('GET', '/api/v1/admin/accounts/page-1', { key: keys.running })).status).toBe(403);
    expect((await app.request('GET', '/api/v1/admin/accounts', { key: keys.running })).status).toBe(403);
    expect((await app.request('GET', '/api/v1/admin/accounts/no-such-account', { key: ROOT })).status).toBe(404);
  });
});

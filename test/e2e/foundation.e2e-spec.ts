import { startTestApp, storeModes, TestApp } from '@app/testing';

const ROOT = 'root-key-for-tests-0123456789';

describe.each(storeModes())('foundation over HTTP (store: %s)', (store) => {
  let app: TestApp;
  let aliceKey: string;
  let bobKey: string;
  let adminKey: string;

  beforeAll(async () => {
    // A first start: the embedded database is created and migrated here, not copied from the template.
    app = await startTestApp({ store, rootApiKey: ROOT, freshStore: true });
    const acme = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'boss' },
    });
    expect(acme.status).toBe(200);
    adminKey = acme.body.result.user_key;
    const alice = await app.request('POST', '/api/v1/admin/accounts/acme/users', {
      key: adminKey,
      body: { user_id: 'alice', role: 'user' },
    });
    expect(alice.status).toBe(200);
    aliceKey = alice.body.result.user_key;
    const other = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'globex', admin_user_id: 'bob' },
    });
    bobKey = other.body.result.user_key;
  });

  afterAll(() => app.close());

  it('admin: keys have the three-segment format, accounts and users are listed, roles change, keys rotate', async () => {
    expect(aliceKey.split('.')).toHaveLength(3);
    expect(Buffer.from(aliceKey.split('.')[1], 'base64url').toString()).toBe('alice');
    const accounts = await app.request('GET', '/api/v1/admin/accounts', { key: ROOT });
    expect(accounts.body.result.map((a: { account_id: string }) => a.account_id)).toEqual(['acme', 'globex']);
    const users = await app.request('GET', '/api/v1/admin/accounts/acme/users', { key: adminKey });
    expect(users.body.result.map((u: { user_id: string }) => u.user_id)).toEqual(['alice', 'boss']);
    const role = await app.request('PUT', '/api/v1/admin/accounts/acme/users/alice/role', {
      key: adminKey,
      body: { role: 'admin' },
    });
    expect(role.body.result).toEqual({ account_id: 'acme', user_id: 'alice', role: 'admin' });
    await app.request('PUT', '/api/v1/admin/accounts/acme/users/alice/role', { key: adminKey, body: { role: 'user' } });
    const rotated = await app.request('POST', '/api/v1/admin/accounts/acme/users/alice/key', { key: adminKey });
    expect(rotated.status).toBe(200);
    const stale = await app.request('GET', '/api/v1/system/status', { key: aliceKey });
    expect(stale.status).toBe(401);
    aliceKey = rotated.body.result.user_key;
    const fresh = await app.request('GET', '/api/v1/system/status', { key: aliceKey });
    expect(fresh.body.result.user).toBe('alice');
  });

  it('admin: role rules', async () => {
    const asUser = await app.request('GET', '/api/v1/admin/accounts/acme/users', { key: aliceKey });
    expect(asUser.status).toBe(403);
    const crossAccount = await app.request('GET', '/api/v1/admin/accounts/globex/users', { key: adminKey });
    expect(crossAccount.status).toBe(403);
    expect(crossAccount.body.error.message).toBe('ADMIN can only manage account: acme');
    const dup = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'x' },
    });
    expect(dup.status).toBe(409);
    const badId = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'a/b', admin_user_id: 'x' },
    });
    expect(badId.status).toBe(400);
  });

  it('auth: missing key 401, unknown key 401, root key on tenant data 403, Bearer works', async () => {
    expect((await app.request('GET', '/api/v1/fs/ls?uri=viking://resources')).status).toBe(401);
    expect((await app.request('GET', '/api/v1/fs/ls?uri=viking://resources', { key: 'nope' })).status).toBe(401);
    const root = await app.request('GET', '/api/v1/fs/ls?uri=viking://resources', { key: ROOT });
    expect(root.status).toBe(403);
    expect(root.body.error.code).toBe('PERMISSION_DENIED');
    const bearer = await app.request('GET', '/api/v1/system/status', {
      headers: { authorization: `Bearer ${aliceKey}` },
    });
    expect(bearer.body.result.user).toBe('alice');
  });

  it('content: write (create), read, stat, ls, append, replace, delete, with parents created', async () => {
    const uri = 'viking://~/memories/events/launch.md';
    const body = '# Summary\nShipped the launch.\n\n# 2026-07-14 ChatLog:\nlong talk\n<!-- MEMORY_FIELDS {"k":1} -->\n';
    const w = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri, content: body, mode: 'create', wait: true },
    });
    expect(w.status).toBe(200);
    expect(w.body.result).toMatchObject({
      uri: 'viking://user/alice/memories/events/launch.md',
      context_type: 'memory',
      mode: 'create',
      semantic_status: 'complete',
    });
    const read = await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { key: aliceKey });
    expect(read.body.result).toBe('# Summary\nShipped the launch.\n\n# 2026-07-14 ChatLog:\nlong talk');
    const raw = await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}&raw=true`, {
      key: aliceKey,
    });
    expect(raw.body.result).toContain('MEMORY_FIELDS');
    const again = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri, content: 'x', mode: 'create' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_EXISTS');
    const ls = await app.request('GET', '/api/v1/fs/ls?uri=viking://user/alice/memories', { key: aliceKey });
    expect(ls.body.result).toEqual([
      expect.objectContaining({ uri: 'viking://user/alice/memories/events', isDir: true, size: 0 }),
    ]);
    expect(ls.body.result[0].abstract).toContain('events');
    const overview = await app.request('GET', '/api/v1/content/overview?uri=viking://user/alice/memories/events', {
      key: aliceKey,
    });
    expect(overview.body.result).toContain('launch.md');
    const ap = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri, content: 'more', mode: 'append' },
    });
    expect(ap.status).toBe(200);
    const missing = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri: 'viking://~/nope.md', content: 'x' },
    });
    expect(missing.status).toBe(404);
    const stat = await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(uri)}`, { key: aliceKey });
    expect(stat.body.result).toMatchObject({ name: 'launch.md', isDir: false });
    const delDir = await app.request('DELETE', '/api/v1/fs?uri=viking://user/alice/memories', { key: aliceKey });
    expect(delDir.status).toBe(412);
    const del = await app.request('DELETE', '/api/v1/fs?uri=viking://user/alice/memories&recursive=true', {
      key: aliceKey,
    });
    expect(del.body.result.estimated_deleted_count).toBe(3);
    expect(
      (await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { key: aliceKey })).status,
    ).toBe(404);
  });

  it('isolation: another tenant gets 403/404 on every route, whatever the URI trick', async () => {
    await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri: 'viking://user/alice/resources/secret.md', content: 'alice secret', mode: 'create', wait: true },
    });
    const shared = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri: 'viking://resources/acme-plan.md', content: 'acme shared plan', mode: 'create', wait: true },
    });
    expect(shared.status).toBe(200);
    const tricks = [
      'viking://user/alice/resources/secret.md',
      'viking://user/alice/resources/../resources/secret.md',
      'viking://user/alice/resources%2Fsecret.md',
      'viking://USER/alice/resources/secret.md',
      'viking://user/alice//resources/secret.md',
      'viking://user/alice/resources\\secret.md',
    ];
    for (const t of tricks) {
      const q = encodeURIComponent(t);
      for (const [method, path] of [
        ['GET', `/api/v1/content/read?uri=${q}`],
        ['GET', `/api/v1/content/abstract?uri=${q}`],
        ['GET', `/api/v1/content/overview?uri=${q}`],
        ['GET', `/api/v1/fs/stat?uri=${q}`],
        ['GET', `/api/v1/fs/ls?uri=${q}`],
        ['DELETE', `/api/v1/fs?uri=${q}`],
      ]) {
        const r = await app.request(method, path, { key: bobKey });
        expect([400, 403, 404]).toContain(r.status);
        expect(r.body.status).toBe('error');
        expect(r.text).not.toContain('alice secret');
      }
      const w = await app.request('POST', '/api/v1/content/write', {
        key: bobKey,
        body: { uri: t, content: 'overwrite' },
      });
      expect([400, 403, 404]).toContain(w.status);
    }
    // The other account's shared resources are invisible too (same URI, different tenant).
    const sharedRead = await app.request('GET', '/api/v1/content/read?uri=viking://resources/acme-plan.md', {
      key: bobKey,
    });
    expect(sharedRead.status).toBe(404);
    // `~` expands to the caller's own space, never the other tenant's: bob's own (standing, still empty) folder.
    const tilde = await app.request('GET', '/api/v1/fs/ls?uri=viking://~/resources', { key: bobKey });
    expect([tilde.status, tilde.body.result]).toEqual([200, []]);
    const list = await app.request('GET', '/api/v1/fs/ls?uri=viking://&recursive=true', { key: bobKey });
    expect(JSON.stringify(list.body)).not.toContain('alice');
    // Alice's data is intact.
    const mine = await app.request('GET', '/api/v1/content/read?uri=viking://user/alice/resources/secret.md', {
      key: aliceKey,
    });
    expect(mine.body.result).toBe('alice secret');
  });

  it('actor peer header: validated, and hides other peers', async () => {
    for (const bad of ['a/b', 'a\\b', '..', 'a@b@c', 'sp ace']) {
      const r = await app.request('GET', '/api/v1/system/status', {
        key: aliceKey,
        headers: { 'x-openviking-actor-peer': bad },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_ARGUMENT');
    }
    for (const peer of ['p1', 'p2']) {
      await app.request('POST', '/api/v1/content/write', {
        key: aliceKey,
        body: {
          uri: `viking://~/peers/${peer}/memories/entities/x.md`,
          content: `${peer} fact`,
          mode: 'create',
          wait: true,
        },
      });
    }
    const asP1 = await app.request('GET', '/api/v1/fs/ls?uri=viking://~/peers', {
      key: aliceKey,
      headers: { 'x-openviking-actor-peer': 'p1' },
    });
    expect(asP1.body.result.map((e: { uri: string }) => e.uri)).toEqual(['viking://user/alice/peers/p1']);
    const p2Read = await app.request('GET', '/api/v1/content/read?uri=viking://~/peers/p2/memories/entities/x.md', {
      key: aliceKey,
      headers: { 'x-openviking-actor-peer': 'p1' },
    });
    expect(p2Read.status).toBe(403);
    const all = await app.request('GET', '/api/v1/fs/ls?uri=viking://~/peers', { key: aliceKey });
    expect(all.body.result).toHaveLength(2);
  });

  it('validation: every bad input is a 400 envelope, never 422 or 500', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/api/v1/content/write', { uri: 'viking://~/a.md' }],
      ['POST', '/api/v1/content/write', { uri: 'viking://~/a.md', content: 'x', bogus: 1 }],
      ['POST', '/api/v1/content/write', { uri: 'viking://~/a.md', content: 5 }],
      ['POST', '/api/v1/content/write', { uri: 'viking://~/a.md', content: 'x', mode: 'overwrite' }],
      ['POST', '/api/v1/content/write', { uri: 'http://x/a.md', content: 'x' }],
      ['POST', '/api/v1/content/write', { uri: 'viking://user/memories/a.md', content: 'x' }],
      ['POST', '/api/v1/content/write', { uri: 'viking://~/.abstract.md', content: 'x', mode: 'create' }],
      ['POST', '/api/v1/content/batch-write', { root_uri: 'viking://~/r', operations: [] }],
      ['POST', '/api/v1/sessions', { session_id: 'bad id!' }],
      ['POST', '/api/v1/admin/accounts/acme/users', { user_id: 'x', role: 'root' }],
    ];
    for (const [method, path, body] of cases) {
      const r = await app.request(method, path, { key: path.includes('admin') ? adminKey : aliceKey, body });
      expect({ path, body, status: r.status }).toEqual({ path, body, status: 400 });
      expect(r.body.status).toBe('error');
      expect(['INVALID_ARGUMENT', 'INVALID_URI']).toContain(r.body.error.code);
    }
    const extra = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri: 'viking://~/a.md', content: 'x', bogus: 1 },
    });
    expect(extra.body.error.message).toBe('Invalid request parameters: body.bogus: Extra inputs are not permitted');
    expect(extra.body.error.details.validation_errors[0].loc).toEqual(['body', 'bogus']);
    const badJson = await app.request('POST', '/api/v1/content/write', { key: aliceKey, raw: '{"uri":' });
    expect(badJson.status).toBe(400);
    expect(badJson.body.status).toBe('error');
    const badQuery = await app.request('GET', '/api/v1/content/read?uri=viking://~/a.md&offset=abc', { key: aliceKey });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error.details.validation_errors[0].loc).toEqual(['query', 'offset']);
  });

  it('oversized bodies get 413 in the envelope', async () => {
    const big = 'x'.repeat(app.config.http.bodyLimitBytes + 10);
    const r = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: { uri: 'viking://~/big.md', content: big },
    });
    expect(r.status).toBe(413);
    expect(r.body.status).toBe('error');
    expect(r.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('sessions: create, 409 on duplicate, messages advance the clock, auto_create', async () => {
    const s = await app.request('POST', '/api/v1/sessions', { key: aliceKey, body: { session_id: 's1' } });
    expect(s.body.result).toMatchObject({ session_id: 's1', uri: 'viking://user/alice/sessions/s1' });
    expect((await app.request('POST', '/api/v1/sessions', { key: aliceKey, body: { session_id: 's1' } })).status).toBe(
      409,
    );
    const gen = await app.request('POST', '/api/v1/sessions', { key: aliceKey });
    expect(gen.body.result.session_id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{16}$/); // contract: YYYYMMDD-HHMMSS-<16 hex>
    for (const content of ['hi', 'hello']) {
      const m = await app.request('POST', '/api/v1/sessions/s1/messages', {
        key: aliceKey,
        body: { role: 'user', content },
      });
      expect(m.status).toBe(200);
    }
    const got = await app.request('GET', '/api/v1/sessions/s1', { key: aliceKey });
    expect(got.body.result).toMatchObject({ total_message_count: 2, message_count: 2 });
    expect((await app.request('GET', '/api/v1/sessions/nope', { key: aliceKey })).status).toBe(404);
    const auto = await app.request('GET', '/api/v1/sessions/fresh?auto_create=true', { key: aliceKey });
    expect(auto.body.result.total_message_count).toBe(0);
    // Bob cannot see Alice's session.
    expect((await app.request('GET', '/api/v1/sessions/s1', { key: bobKey })).status).toBe(404);
    const noContent = await app.request('POST', '/api/v1/sessions/s1/messages', {
      key: aliceKey,
      body: { role: 'user' },
    });
    expect(noContent.status).toBe(400);
  });

  it('health, metrics and docs are public; every route is in the OpenAPI document', async () => {
    const h = await app.request('GET', '/health');
    expect(h.body).toMatchObject({
      status: 'ok',
      healthy: true,
      checks: { redis: 'up', store: 'up' },
      auth_mode: 'api_key',
    });
    const m = await app.request('GET', '/metrics');
    expect(m.text).toContain('muninn_http_requests_total');
    expect(m.text).toContain('muninn_queue_depth');
    const doc = await app.request('GET', '/openapi.json');
    const paths = Object.keys(doc.body.paths);
    for (const p of [
      '/api/v1/content/write',
      '/api/v1/content/batch-write',
      '/api/v1/content/read',
      '/api/v1/fs/ls',
      '/api/v1/fs/stat',
      '/api/v1/fs',
      '/api/v1/fs/mkdir',
      '/api/v1/sessions',
      '/api/v1/sessions/{sessionId}/messages',
      '/api/v1/admin/accounts',
      '/api/v1/admin/accounts/{accountId}/users/{userId}/key',
      '/health',
      '/metrics',
    ]) {
      expect(paths).toContain(p);
    }
    expect((await app.request('GET', '/docs')).status).toBe(200);
  });
});

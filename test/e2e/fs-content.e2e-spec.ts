// Content and system routes of docs/fs-and-mcp.md over real HTTP.
import { startTestApp, TestApp } from '@app/testing';

const ROOT_KEY = 'fs-content-root-key-0123456789';

describe('content and system routes (api_key mode)', () => {
  let app: TestApp;
  let alice: string;
  const post = (path: string, body: unknown, key = alice) => app.request('POST', path, { key, body });
  const write = (body: Record<string, unknown>) => post('/api/v1/content/write', body);

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT_KEY });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'cnt', admin_user_id: 'alice' },
    });
    alice = acct.body.result.user_key;
    expect(
      (await write({ uri: 'viking://resources/docs/api.md', content: 'hello\n', mode: 'create', wait: true })).status,
    ).toBe(200);
  }, 60000);

  afterAll(() => app.close());

  it('case 53: known paths with the wrong method are 405 (even without a key), unknown paths 404', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/content/write'],
      ['GET', '/api/v1/content/reindex'],
      ['GET', '/api/v1/fs/attrs/set_tags'],
    ]) {
      const r = await app.request(method, path);
      expect([path, r.status, r.body.error?.message]).toEqual([path, 405, 'Method Not Allowed']);
      expect(r.headers.get('allow')).toContain('POST');
    }
    expect((await app.request('POST', '/api/v1/content/rebuild', { key: alice, body: {} })).status).toBe(404);
  });

  it('cases 54-59: write validation order and results', async () => {
    const dir = await write({ uri: 'viking://resources/docs', content: 'x' });
    expect([dir.status, dir.body.error.code]).toEqual([400, 'INVALID_ARGUMENT']);
    const overview = await write({ uri: 'viking://resources/docs/.overview.md', content: 'Hand-written overview.' });
    expect([overview.status, overview.body.result.content_updated]).toEqual([200, true]);
    // The same body again writes nothing, and says so (content_updated reports the store, not a constant).
    const again = await write({ uri: 'viking://resources/docs/.overview.md', content: 'Hand-written overview.' });
    expect([again.status, again.body.result.content_updated]).toEqual([200, false]);
    const noDir = await write({ uri: 'viking://resources/nowhere/.overview.md', content: 'x' });
    expect(noDir.status).toBe(404);
    expect(
      (await app.request('GET', '/api/v1/content/overview?uri=viking://resources/docs', { key: alice })).body.result,
    ).toBe('Hand-written overview.');
    const relations = await write({ uri: 'viking://resources/docs/.relations.json', content: '{}', mode: 'create' });
    expect([relations.status, relations.body.error.code]).toEqual([400, 'INVALID_ARGUMENT']);
    const exists = await write({ uri: 'viking://resources/docs/api.md', content: 'x', mode: 'create' });
    expect([exists.status, exists.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
    const exe = await write({ uri: 'viking://user/alice/memories/test.exe', content: 'x', mode: 'create' });
    expect([exe.status, exe.body.error.message.includes('extension')]).toEqual([400, true]);
    const empty = await write({ uri: 'viking://user/alice/memories/empty.md', content: '', mode: 'create' });
    expect([empty.status, empty.body.result.mode]).toEqual([200, 'create']);
    const appended = await write({
      uri: 'viking://resources/docs/api.md',
      content: 'more\n',
      mode: 'append',
      wait: false,
    });
    expect(appended.body.result).toMatchObject({
      content_updated: true,
      semantic_status: 'queued',
      vector_status: 'queued',
    });
    expect(
      (await app.request('GET', '/api/v1/content/read?uri=viking://resources/docs/api.md', { key: alice })).body.result,
    ).toBe('hello\nmore\n');
    expect((await write({ content: 'x' })).status).toBe(400);
    expect(
      (await write({ uri: 'viking://resources/docs/api.md', content: 'x', regenerate_semantics: true })).status,
    ).toBe(400);
    const vectors = await write({
      uri: 'viking://resources/docs/api.md',
      content: 'v\n',
      processing_mode: 'vectors_only',
    });
    expect([vectors.status, vectors.body.result.semantic_status]).toEqual([200, 'skipped']);
    expect(
      (await write({ uri: 'viking://resources/docs/api.md', content: 'v', processing_mode: 'everything' })).status,
    ).toBe(400);
    const missing = await write({ uri: 'viking://resources/docs/missing.md', content: 'x', mode: 'replace' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const upsert = await write({ uri: 'viking://resources/docs/api.md', content: 'x', mode: 'upsert' });
    expect([upsert.status, upsert.body.error.message.includes('unsupported write mode: upsert')]).toEqual([400, true]);
  });

  it('cases 60, 62: read errors, download bytes', async () => {
    const dir = await app.request('GET', '/api/v1/content/read?uri=viking://resources/docs', { key: alice });
    expect([dir.status, dir.body.error.details]).toEqual([
      400,
      { resource: 'viking://resources/docs', expected: 'file', actual: 'directory' },
    ]);
    const temp = await app.request('GET', '/api/v1/content/read?uri=viking://temp/x', { key: alice });
    expect([temp.status, temp.body.error.code]).toEqual([400, 'INVALID_URI']);
    const dl = await fetch(`${app.url}/api/v1/content/download?uri=viking://resources/docs/api.md`, {
      headers: { 'x-api-key': alice },
    });
    expect([dl.status, dl.headers.get('content-type'), await dl.text()]).toEqual([
      200,
      'application/octet-stream',
      'v\n',
    ]);
    expect(dl.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''api.md");
    const dlMissing = await app.request('GET', '/api/v1/content/download?uri=viking://resources/docs/nope.md', {
      key: alice,
    });
    expect([dlMissing.status, dlMissing.body.status]).toEqual([404, 'error']);
  });

  it('cases 63-65: reindex fields and scope', async () => {
    expect((await post('/api/v1/content/reindex', { mode: 'vectors_only' })).status).toBe(400);
    expect((await post('/api/v1/content/reindex', {})).status).toBe(400);
    const dry = await post('/api/v1/content/reindex', {
      uri: 'viking://~/memories',
      mode: 'vectors_only',
      dry_run: true,
    });
    expect([dry.status, dry.body.error.message]).toEqual([
      400,
      'dry_run is only supported for prune_orphans reindex mode.',
    ]);
    const sdk = await post('/api/v1/content/reindex', {
      uri: 'viking://~/memories',
      dry_run: false,
      tags: ['team=search', 'bad'],
      tag_mode: 'replace',
      wait: true,
    });
    expect([sdk.status, sdk.body.result.status]).toEqual([200, 'completed']);
    const attrs = await app.request('GET', '/api/v1/fs/attrs?uri=viking://user/alice/memories/empty.md', {
      key: alice,
    });
    expect(attrs.body.result.attrs.tags).toEqual(['team=search']);
    expect(
      (await post('/api/v1/content/reindex', { uri: 'viking://~/memories', tags: ['a=b'], tag_mode: 'merge' })).status,
    ).toBe(400);
    const async = await post('/api/v1/content/reindex', { uri: 'viking://~/memories', wait: false });
    expect(async.body.result.status).toBe('accepted');
    // alice is this account's admin; a plain user may reindex only inside their own space.
    const bob = (await post('/api/v1/admin/accounts/cnt/users', { user_id: 'bob', role: 'user' })).body.result.user_key;
    const other = await post('/api/v1/content/reindex', { uri: 'viking://resources/docs' }, bob);
    expect([other.status, other.body.error.message]).toEqual([403, 'USER can only reindex their own user namespace.']);
    const sessions = await post('/api/v1/content/reindex', { uri: 'viking://user/bob/sessions/s' }, bob);
    expect([sessions.status, sessions.body.error.code]).toEqual([400, 'UNSUPPORTED_URI']);
  });

  it('cases 45, 46: delete results and namespace guards', async () => {
    await write({ uri: 'viking://resources/del/a.md', content: 'a', mode: 'create' });
    const dir = await app.request('DELETE', '/api/v1/fs?uri=viking://resources/del', { key: alice });
    expect([dir.status, dir.body.error.code]).toEqual([412, 'FAILED_PRECONDITION']);
    const ok = await app.request('DELETE', '/api/v1/fs?uri=viking://resources/del&recursive=true', { key: alice });
    expect(ok.body.result).toMatchObject({ uri: 'viking://resources/del', estimated_deleted_count: 2 });
    expect((await app.request('DELETE', '/api/v1/fs?uri=viking://resources/del/gone.md', { key: alice })).status).toBe(
      200,
    );
    expect((await app.request('DELETE', '/api/v1/fs?uri=viking://', { key: alice })).status).toBe(403);
    expect((await app.request('DELETE', '/api/v1/fs?uri=viking://~&recursive=true', { key: alice })).status).toBe(403);
  });

  it('cases 67, 70 (wait answers), 71 (debug/health): /ready, status, wait, debug health', async () => {
    const status = await app.request('GET', '/api/v1/system/status', { key: alice });
    expect(status.body.result).toMatchObject({ initialized: true, user: 'alice' });
    const ready = await app.request('GET', '/ready');
    expect([ready.status, ready.body.status]).toEqual([200, 'ready']);
    const waited = await post('/api/v1/system/wait', {});
    expect(waited.status).toBe(200);
    expect(waited.body.result).toHaveProperty('Embedding');
    expect((await post('/api/v1/system/wait', { timeout: -1 })).status).toBe(400);
    const debug = await app.request('GET', '/api/v1/debug/health', { key: ROOT_KEY });
    expect([debug.status, debug.body.result]).toEqual([200, { healthy: true }]);
  });

  it("cases 66, 68: /health names the key's identity only when one resolves and ignores the actor header", async () => {
    const anon = await app.request('GET', '/health');
    expect([anon.status, anon.body.status, anon.body.auth_mode]).toEqual([200, 'ok', 'api_key']);
    expect(anon.body).not.toHaveProperty('user_id');
    const root = await app.request('GET', '/health', { key: ROOT_KEY });
    expect(root.body).toMatchObject({ account_id: 'default', user_id: 'default', role: 'root' });
    const user = await app.request('GET', '/health', { key: alice, headers: { 'x-openviking-actor-peer': 'a/b' } });
    expect([user.status, user.body.user_id, user.body.account_id]).toEqual([200, 'alice', 'cnt']);
    const wrong = await app.request('GET', '/health', { key: 'not-a-key' });
    expect([wrong.status, 'user_id' in wrong.body]).toEqual([200, false]);
    const status = await app.request('GET', '/api/v1/system/status', {
      key: alice,
      headers: { 'x-openviking-actor-peer': 'a/b' },
    });
    expect(status.status).toBe(400);
  });
});

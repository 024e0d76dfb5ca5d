// Hostile-input regressions of issue 11 that live at the gateway: each `it` names the finding it
// covers. (Store-side findings are in store-safety.e2e-spec.ts, write-path ones in write-path and
// write-faults, property-based fuzzing in fuzz.e2e-spec.ts.)
import { startTestApp, TestApp } from '@app/testing';
import { rawRequest } from './hostile-support';

const WRITE = '/api/v1/content/write';
const json = { 'content-type': 'application/json' };

describe('dev mode is localhost-only in fact', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(() => app.close());

  const plant = (headers: Record<string, string>, body = '{"uri":"viking://~/memories/x.md","content":"planted","mode":"create"}') =>
    rawRequest(app.url, 'POST', WRITE, { headers, body });

  it('refuses a Host that is not a loopback name (DNS rebinding) with 403 in the envelope', async () => {
    for (const host of ['evil.example', 'evil.example:1933', '10.0.0.5', 'localhost.evil.example', '127.0.0.1.nip.io']) {
      const r = await plant({ ...json, host });
      expect([host, r.status, r.body.error?.code]).toEqual([host, 403, 'PERMISSION_DENIED']);
      expect(r.body.error.message).toContain('Host');
    }
    for (const host of ['localhost', 'LOCALHOST:1933', '127.0.0.1:9', '[::1]:1933', 'app.localhost']) {
      const r = await rawRequest(app.url, 'GET', '/api/v1/system/status', { headers: { host } });
      expect([host, r.status]).toEqual([host, 200]);
    }
  });

  it('refuses a foreign Origin (cross-site POST) and the opaque origin; accepts localhost pages', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'file://']) {
      const r = await plant({ ...json, origin });
      expect([origin, r.status, r.body.error?.code]).toEqual([origin, 403, 'PERMISSION_DENIED']);
    }
    const ok = await plant({ ...json, origin: 'http://localhost:3000' }, '{"uri":"viking://~/memories/ok.md","content":"fine","mode":"create"}');
    expect(ok.status).toBe(200);
  });

  it('refuses form-encoded and text/plain bodies with 415 (no CORS preflight would stop them), and nothing is stored', async () => {
    const cases: [string, string][] = [
      ['application/x-www-form-urlencoded', 'uri=viking://~/memories/form.md&content=planted'],
      ['text/plain', '{"uri":"viking://~/memories/text.md","content":"planted","mode":"create"}'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\nplanted\r\n--x--'],
    ];
    for (const [type, body] of cases) {
      const r = await plant({ 'content-type': type }, body);
      expect([type, r.status, r.body.error?.code]).toEqual([type, 415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
    const noType = await plant({}, '{"uri":"viking://~/memories/none.md","content":"planted","mode":"create"}');
    expect(noType.status).toBe(415);
    for (const name of ['form', 'text', 'none']) {
      const read = await app.request('GET', `/api/v1/content/read?uri=viking://~/memories/${name}.md`);
      expect([name, read.status]).toEqual([name, 404]);
    }
    const charset = await plant({ 'content-type': 'application/json; charset=utf-8' }, '{"uri":"viking://~/memories/cs.md","content":"ok","mode":"create"}');
    expect(charset.status).toBe(200);
  });
});

describe('authentication before the body', () => {
  const ROOT = 'hostile-root-key-0123456789';
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_BODY_LIMIT_BYTES: '1048576' } });
  });

  afterAll(() => app.close());

  it('an unauthenticated 7 MB body is refused 401 without being parsed (not 413, not 400 for bad JSON)', async () => {
    const body = Buffer.alloc(7 * 1024 * 1024, 0x7b); // "{{{{…": invalid JSON, so a parse would answer 400
    const r = await rawRequest(app.url, 'POST', WRITE, { headers: json, body });
    expect([r.status, r.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
    const wrong = await rawRequest(app.url, 'POST', WRITE, { headers: { ...json, 'x-api-key': 'nope' }, body });
    expect([wrong.status, wrong.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('an authenticated body over the limit is 413 in the envelope, from its declared length', async () => {
    const acme = await app.request('POST', '/api/v1/admin/accounts', { key: ROOT, body: { account_id: 'acme', admin_user_id: 'boss' } });
    const key = acme.body.result.user_key as string;
    const body = Buffer.alloc(2 * 1024 * 1024, 0x7b);
    const r = await rawRequest(app.url, 'POST', WRITE, { headers: { ...json, 'x-api-key': key }, body });
    expect([r.status, r.body.status, r.body.error?.code]).toEqual([413, 'error', 'PAYLOAD_TOO_LARGE']);
  });

  it('public routes still answer without a key', async () => {
    expect((await rawRequest(app.url, 'GET', '/health')).status).toBe(200);
    expect((await rawRequest(app.url, 'GET', '/openapi.json')).status).toBe(200);
  });
});

describe('keys and roles', () => {
  const ROOT = 'hostile-keys-root-0123456789';
  const SEED = 'provisioning-seed-2026';
  let app: TestApp;
  const admin = (path: string, key: string, body: unknown) => app.request('POST', `/api/v1/admin/accounts${path}`, { key, body });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_KEY_SECRET: 'a-server-secret-of-at-least-32-chars!' } });
  });

  afterAll(() => app.close());

  it('a seeded key is an HMAC under the server secret: not the reference hash, and different per account', async () => {
    const a = await admin('', ROOT, { account_id: 'acct-a', admin_user_id: 'boss', seed: SEED });
    const b = await admin('', ROOT, { account_id: 'acct-b', admin_user_id: 'boss', seed: SEED });
    const secretA = a.body.result.user_key.split('.')[2];
    const secretB = b.body.result.user_key.split('.')[2];
    expect(secretA).toMatch(/^[0-9a-f]{64}$/);
    expect(secretA).not.toBe(secretB);
    const { createHash } = await import('node:crypto');
    expect(secretA).not.toBe(createHash('sha256').update(`boss\0${SEED}`).digest('hex'));
    // Reproducible: rotating with the same seed gives the same key back.
    const again = await admin('/acct-a/users/boss/key', ROOT, { seed: SEED });
    expect(again.body.result.user_key).toBe(a.body.result.user_key);
  });

  it("an admin cannot build a working key for a user of another account who got the same seed", async () => {
    const a = await admin('', ROOT, { account_id: 'acct-c', admin_user_id: 'mallory' });
    const b = await admin('', ROOT, { account_id: 'acct-d', admin_user_id: 'boss' });
    const victim = await admin('/acct-d/users', b.body.result.user_key, { user_id: 'victim', seed: SEED });
    expect(victim.status).toBe(200);
    // Mallory gives her own user the same id and seed in her account; the secret part differs.
    const twin = await admin('/acct-c/users', a.body.result.user_key, { user_id: 'victim', seed: SEED });
    const forged = [Buffer.from('acct-d').toString('base64url'), Buffer.from('victim').toString('base64url'), twin.body.result.user_key.split('.')[2]].join('.');
    const r = await app.request('GET', '/api/v1/system/status', { key: forged });
    expect(r.status).toBe(401);
    expect((await app.request('GET', '/api/v1/system/status', { key: victim.body.result.user_key })).body.result.account_id).toBe('acct-d');
  });

  it('an empty or short seed is a 400 naming the field and the minimum', async () => {
    for (const seed of ['', 'short']) {
      const r = await admin('', ROOT, { account_id: `acct-s${seed.length}`, admin_user_id: 'boss', seed });
      expect([seed, r.status, r.body.error?.code]).toEqual([seed, 400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message).toContain('seed must be at least 16 characters');
    }
    const long = await admin('', ROOT, { account_id: 'acct-long', admin_user_id: 'boss', seed: 'x'.repeat(257) });
    expect(long.status).toBe(400);
  });

  it('a plain user cannot recursively delete or reindex the shared resources tree; an admin can; reads stay open', async () => {
    const acct = await admin('', ROOT, { account_id: 'shared', admin_user_id: 'boss' });
    const bossKey = acct.body.result.user_key as string;
    const userKey = (await admin('/shared/users', bossKey, { user_id: 'pat' })).body.result.user_key as string;
    const write = (key: string, uri: string) =>
      app.request('POST', WRITE, { key, body: { uri, content: `text of ${uri}`, mode: 'create', wait: true } });
    expect((await write(bossKey, 'viking://resources/handbook/a.md')).status).toBe(200);
    expect((await write(userKey, 'viking://resources/handbook/b.md')).status).toBe(200);
    const del = (key: string, uri: string, recursive: boolean) =>
      app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(uri)}&recursive=${recursive}`, { key });
    for (const uri of ['viking://resources', 'viking://resources/handbook']) {
      const r = await del(userKey, uri, true);
      expect([uri, r.status, r.body.error?.code]).toEqual([uri, 403, 'PERMISSION_DENIED']);
    }
    const reindex = await app.request('POST', '/api/v1/content/reindex', { key: userKey, body: { uri: 'viking://resources/handbook' } });
    expect(reindex.status).toBe(403);
    const read = await app.request('GET', '/api/v1/content/read?uri=viking://resources/handbook/a.md', { key: userKey });
    expect([read.status, read.body.result]).toEqual([200, 'text of viking://resources/handbook/a.md']);
    const ls = await app.request('GET', '/api/v1/fs/ls?uri=viking://resources/handbook', { key: userKey });
    expect(ls.body.result).toHaveLength(2);
    // A single file is still the user's to delete; the admin may remove the whole tree.
    expect((await del(userKey, 'viking://resources/handbook/b.md', false)).status).toBe(200);
    expect((await del(bossKey, 'viking://resources/handbook', true)).status).toBe(200);
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/handbook/a.md', { key: userKey })).status).toBe(404);
  });
});

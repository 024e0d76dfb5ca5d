import { createTestDatabase, startTestApp, TestApp, TestDatabase, uniqueTestPrefix } from '@app/testing';

// Two gateways of one deployment: one PostgreSQL database, one Redis queue prefix. Keys are cached
// for five minutes here, so only the invalidation channel can explain a change seen within the test.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const ROOT = 'root-key-identity-cache-0123';
const WRITE = '/api/v1/content/write';

suite('key cache across gateway replicas (docs/limits-and-security.md#keys-and-roles)', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase(PG!);
    const env = { DATABASE_URL: db.url, MUNINN_QUEUE_PREFIX: uniqueTestPrefix(), MUNINN_KEY_CACHE_TTL_MS: '300000' };
    a = await startTestApp({ rootApiKey: ROOT, env });
    b = await startTestApp({ rootApiKey: ROOT, env });
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await db?.drop();
  });

  const admin = (app: TestApp, method: string, path: string, body?: unknown) =>
    app.request(method, `/api/v1/admin/accounts${path}`, { key: ROOT, body });
  const write = (app: TestApp, key: string, name: string) =>
    app.request('POST', WRITE, { key, body: { uri: `viking://resources/${name}.md`, content: name, mode: 'create' } });

  /** Repeats a request on replica B until it answers `status`; the bound is far below the cache TTL. */
  async function onB(status: number, send: () => Promise<{ status: number }>): Promise<number> {
    let got = 0;
    for (let i = 0; i < 100 && got !== status; i++) {
      got = (await send()).status;
      if (got !== status) await new Promise((r) => setTimeout(r, 50));
    }
    return got;
  }

  it('a rotated key stops working on the other replica, and the new one works there', async () => {
    const acct = await admin(a, 'POST', '', { account_id: 'rot', admin_user_id: 'boss' });
    const user = await admin(a, 'POST', '/rot/users', { user_id: 'ann', role: 'user' });
    const old = user.body.result.user_key as string;
    expect((await write(b, old, 'r1')).status).toBe(200); // B now holds the key in its cache
    const rotated = await admin(a, 'POST', '/rot/users/ann/key', {});
    expect(rotated.status).toBe(200);
    expect(await onB(401, () => write(b, old, 'r2'))).toBe(401);
    expect((await write(b, rotated.body.result.user_key, 'r3')).status).toBe(200);
    expect(acct.status).toBe(200);
  });

  it('a role change reaches the other replica: a demoted admin loses the admin routes there', async () => {
    const acct = await admin(a, 'POST', '', { account_id: 'demote', admin_user_id: 'boss' });
    await admin(a, 'POST', '/demote/users', { user_id: 'eve', role: 'admin' });
    const eve = (await admin(a, 'GET', '/demote/users/eve')).body.result;
    expect(eve.role).toBe('admin');
    const key = (await admin(a, 'POST', '/demote/users/eve/key', {})).body.result.user_key as string;
    const list = () => b.request('GET', '/api/v1/admin/accounts/demote/users', { key });
    expect((await list()).status).toBe(200);
    expect((await admin(a, 'PUT', '/demote/users/eve/role', { role: 'user' })).status).toBe(200);
    expect(await onB(403, list)).toBe(403);
    expect(acct.status).toBe(200);
  });

  it('deleting a user or an account revokes their keys on the other replica; other accounts keep theirs', async () => {
    const one = await admin(a, 'POST', '', { account_id: 'gone', admin_user_id: 'boss' });
    const two = await admin(a, 'POST', '', { account_id: 'kept', admin_user_id: 'boss' });
    const user = (await admin(a, 'POST', '/gone/users', { user_id: 'zed', role: 'user' })).body.result.user_key;
    const goneAdmin = one.body.result.user_key as string;
    const keptAdmin = two.body.result.user_key as string;
    for (const [k, n] of [
      [user, 'g1'],
      [goneAdmin, 'g2'],
      [keptAdmin, 'k1'],
    ]) {
      expect((await write(b, k, n)).status).toBe(200);
    }
    expect((await admin(a, 'DELETE', '/gone/users/zed')).status).toBe(200);
    expect(await onB(401, () => write(b, user, 'g3'))).toBe(401);
    expect((await write(b, goneAdmin, 'g4')).status).toBe(200);
    expect((await admin(a, 'DELETE', '/gone')).status).toBe(200);
    expect(await onB(401, () => write(b, goneAdmin, 'g5'))).toBe(401);
    expect((await write(b, keptAdmin, 'k2')).status).toBe(200);
  });

  it('a lowered account limit holds on the other replica at once, not when its 5-second reading runs out', async () => {
    await admin(a, 'POST', '', { account_id: 'lim', admin_user_id: 'boss' });
    const key = (await admin(a, 'POST', '/lim/users', { user_id: 'ann', role: 'user' })).body.result.user_key as string;
    expect((await write(b, key, 'l0')).status).toBe(200); // B now holds the account's limits (the deployment's)
    expect((await admin(a, 'PUT', '/lim/limits', { requests_per_minute: 1 })).status).toBe(200);
    // Well inside B's 5-second reading: only the limits channel can make B refuse.
    const until = Date.now() + 1000;
    let got: { status: number; body: any } = { status: 0, body: null };
    for (let i = 1; Date.now() < until && got.status !== 429; i++) {
      got = await write(b, key, `l${i}`);
      if (got.status !== 429) await new Promise((r) => setTimeout(r, 50));
    }
    expect([got.status, got.body?.error?.details?.limit]).toEqual([429, 'account']);
  });
});

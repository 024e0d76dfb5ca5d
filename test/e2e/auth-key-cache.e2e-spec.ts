// docs/limits-and-security.md, "Keys and roles": API key → owner is remembered briefly; rotating a key,
// deleting a user or account and changing a role take effect at once on this replica, and on every other
// through a Redis channel.
import { Redis } from 'ioredis';
import { Db, STORE_DB } from '@app/store';
import { startTestApp, TestApp } from '@app/testing';

const ROOT = 'root-key-for-key-cache-0123456789';

describe('API key cache', () => {
  let app: TestApp;
  let redis: Redis;
  let adminKey: string;

  const status = async (key: string) => (await app.request('GET', '/api/v1/system/status', { key })).status;
  const newUser = async (userId: string) => {
    const r = await app.request('POST', '/api/v1/admin/accounts/kc/users', {
      key: adminKey,
      body: { user_id: userId, role: 'user' },
    });
    expect(r.status).toBe(200);
    return r.body.result.user_key as string;
  };

  beforeAll(async () => {
    // A long TTL, so only an invalidation can make a remembered key stop working within the test.
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_KEY_CACHE_TTL_MS: '300000' } });
    redis = new Redis(app.config.redis.url, { maxRetriesPerRequest: 1 });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'kc', admin_user_id: 'boss' },
    });
    expect(acct.status).toBe(200);
    adminKey = acct.body.result.user_key;
  }, 120000);
  afterAll(async () => {
    await redis.quit();
    await app.close();
  });

  it('a remembered key survives a change made behind the server, until a replica publishes its invalidation', async () => {
    const key = await newUser('carol');
    expect(await status(key)).toBe(200); // now remembered
    // Another replica deletes carol: the rows go, and this replica hears of it only through Redis.
    const db = app.nest.get<Db>(STORE_DB);
    await db.query(`DELETE FROM api_keys WHERE account_id = 'kc' AND user_id = 'carol'`);
    expect(await status(key)).toBe(200); // served from memory: no store read per request
    await redis.publish(
      `${app.config.queues.prefix}:identity-invalidate`,
      JSON.stringify({ accountId: 'kc', userId: 'carol' }),
    );
    let after = 200;
    for (let i = 0; i < 100 && after === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await status(key);
    }
    expect(after).toBe(401);
  });

  it('rotation, role changes and deletions through this replica take effect at once', async () => {
    const key = await newUser('dave');
    expect(await status(key)).toBe(200);
    const rotated = await app.request('POST', '/api/v1/admin/accounts/kc/users/dave/key', { key: adminKey });
    expect(rotated.status).toBe(200);
    expect(await status(key)).toBe(401);
    const fresh = rotated.body.result.user_key as string;
    const asUser = await app.request('GET', '/api/v1/admin/accounts/kc/users', { key: fresh });
    expect(asUser.status).toBe(403);
    const promote = await app.request('PUT', '/api/v1/admin/accounts/kc/users/dave/role', {
      key: adminKey,
      body: { role: 'admin' },
    });
    expect(promote.status).toBe(200);
    expect((await app.request('GET', '/api/v1/admin/accounts/kc/users', { key: fresh })).status).toBe(200);
    const del = await app.request('DELETE', '/api/v1/admin/accounts/kc/users/dave', { key: adminKey });
    expect(del.status).toBe(200);
    expect(await status(fresh)).toBe(401);
    const drop = await app.request('DELETE', '/api/v1/admin/accounts/kc', { key: ROOT });
    expect(drop.status).toBe(200);
    expect(await status(adminKey)).toBe(401);
  });

  it('an unreadable invalidation forgets every remembered key rather than none', async () => {
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'kc2', admin_user_id: 'erin' },
    });
    const key = acct.body.result.user_key as string;
    expect(await status(key)).toBe(200);
    await app.nest.get<Db>(STORE_DB).query(`DELETE FROM api_keys WHERE account_id = 'kc2'`);
    await redis.publish(`${app.config.queues.prefix}:identity-invalidate`, 'not json');
    let after = 200;
    for (let i = 0; i < 100 && after === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await status(key);
    }
    expect(after).toBe(401);
  });
});

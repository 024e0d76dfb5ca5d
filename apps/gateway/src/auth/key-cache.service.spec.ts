import type { AppConfig } from '@app/config';
import type { UserRecord } from '@app/store';
import { KEY_CACHE_MAX_ENTRIES, KeyCacheService } from './key-cache.service';

const config = (ttl: number) => ({ auth: { keyCacheTtlMs: ttl }, queues: { prefix: 't' } }) as unknown as AppConfig;
const user = (id: string): UserRecord => ({ account_id: 'a', user_id: id, role: 'user', created_at: '' });

// In-process transport (no Redis): invalidations are local only.
describe('KeyCacheService', () => {
  it('remembers found owners and never unknown keys', async () => {
    const cache = new KeyCacheService(config(60_000), null);
    let loads = 0;
    const load = (u: UserRecord | null) => async () => (loads++, u);
    expect(await cache.resolve('h1', load(user('x')))).toEqual(user('x'));
    expect(await cache.resolve('h1', load(null))).toEqual(user('x'));
    expect(await cache.resolve('h2', load(null))).toBeNull();
    expect(await cache.resolve('h2', load(user('y')))).toEqual(user('y'));
    expect(loads).toBe(3);
  });

  it('forgets a user, or a whole account, and does not remember a lookup that raced the invalidation', async () => {
    const cache = new KeyCacheService(config(60_000), null);
    await cache.resolve('x', async () => user('x'));
    await cache.resolve('y', async () => user('y'));
    await cache.invalidate('a', 'x');
    expect(await cache.resolve('x', async () => null)).toBeNull();
    expect(await cache.resolve('y', async () => null)).toEqual(user('y'));
    await cache.invalidate('a', null);
    expect(await cache.resolve('y', async () => null)).toBeNull();
    // A read that started before an invalidation may have seen the old row: it is served, not kept.
    let release!: () => void;
    const slow = cache.resolve('z', () => new Promise<UserRecord>((r) => (release = () => r(user('z')))));
    await cache.invalidate('a', 'z');
    release();
    expect(await slow).toEqual(user('z'));
    expect(await cache.resolve('z', async () => null)).toBeNull();
  });

  it('keeps at most KEY_CACHE_MAX_ENTRIES, dropping the least recently used; TTL 0 remembers nothing', async () => {
    const cache = new KeyCacheService(config(60_000), null);
    for (let i = 0; i < KEY_CACHE_MAX_ENTRIES; i++) await cache.resolve(`k${i}`, async () => user(`u${i}`));
    await cache.resolve('k0', async () => null); // k0 becomes the most recently used
    await cache.resolve('new', async () => user('new'));
    expect(await cache.resolve('k1', async () => null)).toBeNull();
    expect(await cache.resolve('k0', async () => null)).toEqual(user('u0'));
    const off = new KeyCacheService(config(0), null);
    await off.resolve('h', async () => user('x'));
    expect(await off.resolve('h', async () => null)).toBeNull();
  });
});

import type { AppConfig } from '@app/config';
import { IdentityCacheService, KeyOwner } from './identity-cache.service';

const config = (ttl: number, max = 100) =>
  ({ auth: { keyCacheTtlMs: ttl, keyCacheMaxEntries: max }, queues: { prefix: 't' } }) as unknown as AppConfig;
const owner = (userId: string, accountId = 'a'): KeyOwner => ({ accountId, userId, role: 'user', suspended: null });

// In-process transport (no Redis): invalidations are local only; the Redis channel is covered end to end
// (test/e2e/identity-cache.e2e-spec.ts, test/e2e/auth-key-cache.e2e-spec.ts).
describe('IdentityCacheService', () => {
  it('remembers what it is given, by key, and forgets a user or a whole account', async () => {
    const cache = new IdentityCacheService(config(60_000), null);
    cache.set('kx', owner('x'), cache.mark());
    cache.set('ky', owner('y'), cache.mark());
    cache.set('kz', owner('z', 'b'), cache.mark());
    expect(cache.get('kx')).toEqual(owner('x'));
    expect(cache.get('unknown')).toBeUndefined();
    await cache.invalidate({ accountId: 'a', userId: 'x' });
    expect([cache.get('kx'), cache.get('ky')]).toEqual([undefined, owner('y')]);
    await cache.invalidate({ accountId: 'a' });
    expect([cache.get('ky'), cache.get('kz')]).toEqual([undefined, owner('z', 'b')]);
  });

  it('does not remember a lookup that started before an invalidation (it may have read the old row)', async () => {
    const cache = new IdentityCacheService(config(60_000), null);
    const mark = cache.mark();
    await cache.invalidate({ accountId: 'a', userId: 'x' });
    cache.set('kx', owner('x'), mark);
    expect(cache.get('kx')).toBeUndefined();
    cache.set('kx', owner('x'), cache.mark());
    expect(cache.get('kx')).toEqual(owner('x'));
  });

  it('keeps at most MUNINN_KEY_CACHE_MAX_ENTRIES keys, dropping the least recently used; TTL 0 keeps none', () => {
    const cache = new IdentityCacheService(config(60_000, 3), null);
    for (const k of ['k0', 'k1', 'k2']) cache.set(k, owner(k), cache.mark());
    cache.get('k0'); // k0 becomes the most recently used
    cache.set('k3', owner('k3'), cache.mark());
    expect(['k0', 'k1', 'k2', 'k3'].map((k) => cache.get(k)?.userId)).toEqual(['k0', undefined, 'k2', 'k3']);
    const off = new IdentityCacheService(config(0), null);
    off.set('k', owner('x'), off.mark());
    expect(off.get('k')).toBeUndefined();
  });
});

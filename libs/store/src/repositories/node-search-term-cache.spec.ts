import { TermStatsCache } from './node-search-term-cache';

describe('TermStatsCache', () => {
  it('returns what was set until the TTL passes', () => {
    let now = 1000;
    const cache = new TermStatsCache(100, 10, () => now);
    cache.set('a', 3);
    expect(cache.get('a')).toBe(3);
    now += 100;
    expect(cache.get('a')).toBe(3);
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('never')).toBeUndefined();
  });

  it('evicts the least recently used entry beyond max', () => {
    const cache = new TermStatsCache(1000, 2, () => 0);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c')]).toEqual([1, 3]);
  });
});

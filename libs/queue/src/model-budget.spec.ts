import { Redis } from 'ioredis';
import { ModelBudget } from './model-budget';

describe('ModelBudget (docs/limits-and-security.md, "Model budget")', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: false });
  const prefix = `model-budget-spec-${process.pid}-${Date.now()}`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it.each([
    ['in Redis, shared by extractors', true],
    ['in one process without Redis', false],
  ])("counts each account's day apart and is spent at the limit (%s)", async (_name, shared) => {
    const budget = new ModelBudget(300, `${prefix}-${shared}`, shared ? redis : null);
    expect(await budget.spent('a')).toBe(false);
    await budget.add('a', 200);
    expect(await budget.spent('a')).toBe(false);
    await budget.add('a', 100);
    expect(await budget.spent('a')).toBe(true);
    expect(await budget.usedToday('a')).toBe(300);
    expect(await budget.spent('b')).toBe(false);
    await budget.add('b', 0);
    await budget.add('b', Number.NaN);
    expect(await budget.spent('b')).toBe(false);
    if (shared) {
      // Another extractor of the deployment sees the same count, kept for two days at most.
      expect(await new ModelBudget(300, `${prefix}-${shared}`, redis).spent('a')).toBe(true);
      const [key] = await redis.keys(`${prefix}-${shared}:model-tokens:*`);
      expect(await redis.ttl(key)).toBeGreaterThan(86_400);
    }
  });

  it('with the budget off (0) is never spent and counts nothing', async () => {
    const budget = new ModelBudget(0, `${prefix}-off`, redis);
    await budget.add('a', 1_000_000);
    expect(await budget.spent('a')).toBe(false);
    expect(await redis.keys(`${prefix}-off:*`)).toEqual([]);
  });

  it('a Redis it cannot read does not refuse (a spending bound, not a security boundary)', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const budget = new ModelBudget(1, `${prefix}-down`, down);
    await budget.add('a', 5);
    expect(await budget.spent('a')).toBe(false);
    down.disconnect();
  });
});

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

  const WHERE = [
    ['in Redis, shared by extractors', true],
    ['in one process without Redis', false],
  ] as const;

  it.each(WHERE)("counts each account's day apart and refuses once it is spent (%s)", async (_name, shared) => {
    const L = 300;
    const budget = new ModelBudget(`${prefix}-${shared}`, shared ? redis : null);
    const first = await budget.reserve('a', L, 50, 'extract');
    expect(first?.reserved).toBe(50);
    expect(await budget.usedToday('a', L)).toBe(50);
    // Settled at its usage, in place of the reservation; a second settle changes nothing.
    await first?.settle(200);
    await first?.settle(5_000);
    expect(await budget.usedToday('a', L)).toBe(200);
    // Below the limit a call goes ahead and may pass it by its own cost; then the day is spent.
    await (await budget.reserve('a', L, 10, 'extract'))?.settle(150);
    expect(await budget.usedToday('a', L)).toBe(350);
    expect(await budget.reserve('a', L, 1, 'extract')).toBeNull();
    expect(await budget.usedToday('a', L)).toBe(350);
    // Another account's day is its own; hostile counts are no tokens.
    const b = await budget.reserve('b', L, Number.NaN, 'extract');
    expect(b?.reserved).toBe(0);
    await b?.settle(-40);
    expect(await budget.usedToday('b', L)).toBe(0);
    if (shared) {
      // Another process of the deployment sees the same count, kept for two days at most.
      expect(await new ModelBudget(`${prefix}-${shared}`, redis).reserve('a', L, 1, 'extract')).toBeNull();
      const [key] = await redis.keys(`${prefix}-${shared}:model-tokens:*`);
      expect(await redis.ttl(key)).toBeGreaterThan(86_400);
    }
  });

  it.each(WHERE)(
    'calls made at once see each other: only those that fit the day are let through (%s)',
    async (_name, shared) => {
      const L = 100;
      const budget = new ModelBudget(`${prefix}-race-${shared}`, shared ? redis : null);
      // Five calls of 40 tokens each asked for together: 0 → 40 → 80 → 120, then the day is spent.
      const spends = await Promise.all(Array.from({ length: 5 }, () => budget.reserve('a', L, 40, 'extract')));
      expect(spends.filter((s) => s !== null)).toHaveLength(3);
      expect(await budget.usedToday('a', L)).toBe(120);
      // A call that never reached the model gives its reservation back, and room opens again.
      const [first, second, third] = spends.filter((x) => x !== null);
      await first?.settle(0);
      expect(await budget.usedToday('a', L)).toBe(80);
      // A failed call: past its fuse it stays counted at its reservation; refused, it gives it back.
      await second?.failed(true);
      expect(await budget.usedToday('a', L)).toBe(80);
      await third?.failed(false);
      expect(await budget.usedToday('a', L)).toBe(40);
      expect(await budget.reserve('a', L, 40, 'extract')).not.toBeNull();
    },
  );

  it('with the budget off (0) lets every call through and counts nothing', async () => {
    const L = 0;
    const budget = new ModelBudget(`${prefix}-off`, redis);
    const spend = await budget.reserve('a', L, 1_000_000, 'extract');
    await spend?.settle(2_000_000);
    expect(await budget.reserve('a', L, 1, 'extract')).not.toBeNull();
    expect(await budget.usedToday('a', L)).toBe(0);
    expect(await redis.keys(`${prefix}-off:*`)).toEqual([]);
  });

  it('a Redis it cannot read does not refuse (a spending bound, not a security boundary)', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const L = 1;
    const budget = new ModelBudget(`${prefix}-down`, down);
    const spend = await budget.reserve('a', L, 5, 'extract');
    expect(spend).not.toBeNull();
    await spend?.settle(5);
    expect(await budget.reserve('a', L, 5, 'extract')).not.toBeNull();
    down.disconnect();
  });
});

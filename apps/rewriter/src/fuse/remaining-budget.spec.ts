import { FUSE_GRACE_MS, remainingBudget } from './remaining-budget';

describe('remainingBudget', () => {
  it.each([
    { name: 'no enqueue time: the whole fuse', timeout: 1000, at: undefined, now: 5000, out: 1000 },
    { name: 'time queued is subtracted', timeout: 1000, at: 4700, now: 5000, out: 700 },
    { name: 'expired in the queue', timeout: 1000, at: 3000, now: 5000, out: -1000 },
    {
      name: 'a consumer clock behind the producer grants no extra time',
      timeout: 1000,
      at: 6000,
      now: 5000,
      out: 1000,
    },
  ])('$name', ({ timeout, at, now, out }) => {
    expect(remainingBudget(timeout, at, now)).toBe(out);
  });
});

describe('FUSE_GRACE_MS', () => {
  it('is short next to the default fuses (5 s expansion, 30 s rewrite) but covers queue and clock jitter', () => {
    expect(FUSE_GRACE_MS).toBeGreaterThanOrEqual(250);
    expect(FUSE_GRACE_MS).toBeLessThanOrEqual(1000);
  });
});

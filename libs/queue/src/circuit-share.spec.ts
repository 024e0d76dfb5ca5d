import { Redis } from 'ioredis';
import { ModelBudget } from './model-budget';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// docs/limits-and-security.md, "A model that stops answering": two processes of one deployment (two
// ModelBudgets on their own Redis connections, one prefix) and their circuits of the same call.
describe('the model circuits shared through Redis', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const conns: Redis[] = [];
  const budgets: ModelBudget[] = [];
  const prefix = `circuit-share-spec-${process.pid}-${Date.now()}`;
  const process_ = () => {
    const redis = new Redis(url);
    conns.push(redis);
    const budget = new ModelBudget(prefix, redis);
    budgets.push(budget);
    return budget;
  };
  afterAll(async () => {
    for (const b of budgets) b.onModuleDestroy();
    await Promise.all(conns.map((c) => c.quit()));
  });

  it("one process's circuit opening holds the others' of that call open for its cool-down, and no other call's", async () => {
    const settings = { breakerFailures: 2, breakerCooldownMs: 1500 };
    const a = process_().metrics.newCircuit('expand', 'expansion (a)', settings);
    const second = process_();
    const b = second.metrics.newCircuit('expand', 'expansion (b)', settings);
    const bDigest = second.metrics.newCircuit('digest', 'digest (b)', settings);
    await sleep(300); // both subscriptions up
    let bCalls = 0;
    const bCall = async () => (bCalls++, 'answer');

    const failing = async (): Promise<string> => {
      throw new Error('provider 503');
    };
    await expect(a.run(failing)).rejects.toThrow('provider 503');
    expect(await b.run(bCall)).toEqual({ skipped: false, value: 'answer' });
    await expect(a.run(failing)).rejects.toThrow('provider 503'); // a opens
    await sleep(300);
    // b never failed a call, yet makes none; b's digest circuit is its own.
    expect(await b.run(bCall)).toEqual({ skipped: true });
    expect(await bDigest.run(bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(2);
    // After a's cool-down b calls again (a's own first call finds out for a).
    await sleep(1500);
    expect(await b.run(bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(3);
  });

  it('a process without Redis has its circuits to itself', async () => {
    const settings = { breakerFailures: 1, breakerCooldownMs: 5000 };
    const alone = new ModelBudget(prefix, null).metrics.newCircuit('embed', 'embedding (alone)', settings);
    const shared = process_().metrics.newCircuit('embed', 'embedding (shared)', settings);
    await sleep(300);
    await expect(alone.run(async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await sleep(300);
    expect(await shared.run(async () => 'ok')).toEqual({ skipped: false, value: 'ok' });
  });
});

import { Redis } from 'ioredis';
import { ModelBudget } from './model-budget';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failing = async (): Promise<string> => {
  throw new Error('provider 503');
};

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

  it("one process's circuit opening holds the others' of that call open until it closes, and no other call's", async () => {
    const settings = { breakerFailures: 2, breakerCooldownMs: 1500 };
    const a = process_().metrics.newCircuit('expand', 'expansion (a)', settings);
    const second = process_();
    const b = second.metrics.newCircuit('expand', 'expansion (b)', settings);
    const bDigest = second.metrics.newCircuit('digest', 'digest (b)', settings);
    await sleep(300); // both subscriptions up
    let bCalls = 0;
    const bCall = async () => (bCalls++, 'answer');

    await expect(a.run('acct', failing)).rejects.toThrow('provider 503');
    expect(await b.run('acct', bCall)).toEqual({ skipped: false, value: 'answer' });
    await expect(a.run('acct', failing)).rejects.toThrow('provider 503'); // a opens
    await sleep(300);
    // b never failed a call, yet makes none; b's digest circuit is its own.
    expect(await b.run('acct', bCall)).toEqual({ skipped: 'open' });
    expect(await bDigest.run('acct', bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(2);
    // Past a's cool-down b still waits for a's word: one call finds out for the deployment, a's.
    await sleep(1700);
    expect(await b.run('acct', bCall)).toEqual({ skipped: 'open' });
    expect(await a.run('acct', async () => 'back')).toEqual({ skipped: false, value: 'back' }); // a closes
    await sleep(300);
    expect(await b.run('acct', bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(3);

    // Without word from a (a process that died), b's hold ends after twice the cool-down.
    await expect(a.run('acct', failing)).rejects.toThrow('provider 503');
    await expect(a.run('acct', failing)).rejects.toThrow('provider 503');
    await sleep(300);
    expect(await b.run('acct', bCall)).toEqual({ skipped: 'open' });
    await sleep(2 * 1500);
    expect(await b.run('acct', bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(4);
  });

  it("another process's opening lets this one's calls in flight go at once, not counted as failures", async () => {
    const settings = { breakerFailures: 2, breakerCooldownMs: 500 };
    const a = process_().metrics.newCircuit('digest', 'digest (a)', settings);
    const b = process_().metrics.newCircuit('digest', 'digest (b)', settings);
    await sleep(300);
    let heard: unknown = null;
    // b's call waits on a provider that never answers; it heeds its signal.
    const inFlight = b.run(
      'acct',
      (signal) =>
        new Promise<string>((_, reject) =>
          signal.addEventListener('abort', () => {
            heard = signal.reason;
            reject(new Error('aborted'));
          }),
        ),
    );
    await expect(a.run('acct', failing)).rejects.toThrow('provider 503');
    await expect(a.run('acct', failing)).rejects.toThrow('provider 503'); // a opens
    expect(await inFlight).toEqual({ skipped: 'cut' });
    expect(heard).toBeInstanceOf(Error);
    expect(await b.run('acct', async () => 'made')).toEqual({ skipped: 'open' });
    // a finds the provider back and b closes; had b counted its cut call, one failure more would open it.
    await sleep(600);
    expect(await a.run('acct', async () => 'back')).toEqual({ skipped: false, value: 'back' });
    await sleep(300);
    await expect(b.run('acct', failing)).rejects.toThrow('provider 503');
    expect(await b.run('acct', async () => 'made')).toEqual({ skipped: false, value: 'made' });
  });

  it("a process started while another's circuit is open holds its own open at once, until that one closes", async () => {
    const settings = { breakerFailures: 1, breakerCooldownMs: 800 };
    const a = process_().metrics.newCircuit('index_embed', 'index embedding (a)', settings);
    await sleep(300);
    await expect(a.run('acct', failing)).rejects.toThrow('provider 503'); // a opens
    await sleep(100);
    // Started after the word went out: it reads the opening kept in Redis.
    const late = process_().metrics.newCircuit('index_embed', 'index embedding (late)', settings);
    await sleep(300);
    let calls = 0;
    expect(await late.run('acct', async () => (calls++, 'made'))).toEqual({ skipped: 'open' });
    expect(calls).toBe(0);
    // a finds the provider back: the late process closes, and one started now is not held.
    await sleep(600);
    expect(await a.run('acct', async () => 'back')).toEqual({ skipped: false, value: 'back' });
    await sleep(300);
    expect(await late.run('acct', async () => (calls++, 'made'))).toEqual({ skipped: false, value: 'made' });
    const later = process_().metrics.newCircuit('index_embed', 'index embedding (later)', settings);
    await sleep(300);
    expect(await later.run('acct', async () => (calls++, 'made'))).toEqual({ skipped: false, value: 'made' });
    expect(calls).toBe(2);
  });

  it("one process's hold of an account holds it on the others, lets their calls of it go, and ends with its answer", async () => {
    const settings = { breakerFailures: 2, breakerCooldownMs: 800 };
    const a = process_().metrics.newCircuit('expand', 'expansion (a)', settings);
    const b = process_().metrics.newCircuit('expand', 'expansion (b)', settings);
    await sleep(300);
    let bCalls = 0;
    const bCall = async () => (bCalls++, 'answer');
    // b's call for noisy waits on a provider that never answers; it heeds its signal.
    const inFlight = b.run(
      'noisy',
      (signal) =>
        new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    // calm's answered call keeps a's circuit closed (one account failing is not an outage); noisy's two
    // failures on a hold noisy there, and, told through Redis, on b.
    expect(await a.run('calm', async () => 'answer')).toEqual({ skipped: false, value: 'answer' });
    await expect(a.run('noisy', failing)).rejects.toThrow('provider 503');
    await expect(a.run('noisy', failing)).rejects.toThrow('provider 503');
    expect(await inFlight).toEqual({ skipped: 'cut' });
    expect(await b.run('noisy', bCall)).toEqual({ skipped: 'held' });
    expect(await b.run('calm', bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(1);
    expect(b.heldAccounts).toBe(1);
    // Past a's cool-down b still waits for a's word: a's call finds out for the deployment.
    await sleep(900);
    expect(await b.run('noisy', bCall)).toEqual({ skipped: 'held' });
    expect(await a.run('noisy', async () => 'back')).toEqual({ skipped: false, value: 'back' });
    await sleep(300);
    expect(b.heldAccounts).toBe(0);
    expect(await b.run('noisy', bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(2);

    // Held again by a, which then says nothing (a process that died): b's hold ends after twice the cool-down.
    expect(await a.run('calm', async () => 'answer')).toEqual({ skipped: false, value: 'answer' });
    await expect(a.run('noisy', failing)).rejects.toThrow('provider 503');
    await expect(a.run('noisy', failing)).rejects.toThrow('provider 503');
    await sleep(300);
    expect(await b.run('noisy', bCall)).toEqual({ skipped: 'held' });
    await sleep(2 * 800);
    expect(await b.run('noisy', bCall)).toEqual({ skipped: false, value: 'answer' });
    expect(bCalls).toBe(3);
  });

  it('a process without Redis has its circuits to itself', async () => {
    const settings = { breakerFailures: 1, breakerCooldownMs: 5000 };
    const alone = new ModelBudget(prefix, null).metrics.newCircuit('embed', 'embedding (alone)', settings);
    const shared = process_().metrics.newCircuit('embed', 'embedding (shared)', settings);
    await sleep(300);
    await expect(alone.run('acct', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await sleep(300);
    expect(await shared.run('acct', async () => 'ok')).toEqual({ skipped: false, value: 'ok' });
  });
});

import { QueueName } from '@app/contracts';
import { InProcessJobBus } from './in-process-job-bus';
import { JobDeferred } from './job-deferral';
import { runInWorkContext } from './job-context';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe('InProcessJobBus coalescing (the in-process twin of BullMQ deduplication with keepLastIfActive)', () => {
  it('drops adds while one is waiting, and runs once more with the latest payload after a running one', async () => {
    const bus = new InProcessJobBus();
    const seen: string[] = [];
    let release!: () => void;
    let gate = new Promise<void>((r) => (release = r));
    bus.register(QueueName.Sidecar, async (d) => {
      seen.push((d as { uri: string }).uri);
      await gate;
      return { refreshed: 1 };
    });
    const add = (uri: string, delayMs = 0) =>
      bus.enqueue(QueueName.Sidecar, { accountId: 'a', uri }, { coalesceKey: 'k', delayMs });
    await add('viking://one', 10);
    await add('viking://two', 10); // waiting: coalesced into the first
    await tick(30);
    expect(seen).toEqual(['viking://one']);
    await add('viking://three'); // running: kept as the follow-up
    await add('viking://four'); // replaces the follow-up's payload
    gate = Promise.resolve();
    release();
    await tick(30);
    expect(seen).toEqual(['viking://one', 'viking://four']);
  });

  it('moves a waiting job to the delay of an add that reschedules, earlier or later, and runs it once', async () => {
    const bus = new InProcessJobBus();
    const seen: string[] = [];
    bus.register(QueueName.Sidecar, async (d) => seen.push((d as { uri: string }).uri));
    const add = (uri: string, delayMs: number, reschedule: boolean) =>
      bus.enqueue(QueueName.Sidecar, { accountId: 'a', uri }, { coalesceKey: 'k', delayMs, reschedule });
    await add('viking://one', 60_000, false);
    await add('viking://two', 10, true); // moved to now: runs with the payload it was added with
    await tick(40);
    expect(seen).toEqual(['viking://one']);
    expect(await bus.depths()).toEqual({ [QueueName.Sidecar]: 0 });
    await add('viking://three', 10, false);
    await add('viking://four', 60, true); // moved later
    await tick(40);
    expect(seen).toEqual(['viking://one']);
    expect(await bus.depths()).toEqual({ [QueueName.Sidecar]: 1 });
    await tick(60);
    expect(seen).toEqual(['viking://one', 'viking://three']);
  });

  it('runs a delayed job later, not at once', async () => {
    const bus = new InProcessJobBus();
    const seen: number[] = [];
    bus.register(QueueName.Sidecar, async () => seen.push(Date.now()));
    await bus.enqueue(QueueName.Sidecar, { accountId: 'a', uri: 'viking://x' }, { delayMs: 50 });
    expect(seen).toEqual([]);
    await tick(80);
    expect(seen.length).toBe(1);
  });

  it('counts scheduled and running jobs as depth, and finished ones no longer (system/wait ends)', async () => {
    const bus = new InProcessJobBus();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    bus.register(QueueName.Sidecar, async () => {
      await gate;
      return { refreshed: 1 };
    });
    await bus.enqueue(QueueName.Sidecar, { accountId: 'a', uri: 'viking://x' }, { delayMs: 10 });
    expect(await bus.depths()).toEqual({ [QueueName.Sidecar]: 1 }); // delayed
    await tick(30);
    expect(await bus.depths()).toEqual({ [QueueName.Sidecar]: 1 }); // running
    release();
    await tick(10);
    expect(await bus.depths()).toEqual({ [QueueName.Sidecar]: 0 }); // done, though kept for waitFor
  });

  it('runs a job put back (JobDeferred) again after its pause, counted as depth meanwhile, and resolves its waiter', async () => {
    const bus = new InProcessJobBus();
    const runs: number[] = [];
    bus.register(QueueName.Index, async () => {
      runs.push(Date.now());
      if (runs.length < 3) throw new JobDeferred(40, 'busy');
      return { indexed: 1 };
    });
    const job = { accountId: 'a', outboxId: 1, op: 'upsert' as const, uris: ['viking://resources/x.md'] };
    await bus.enqueue(QueueName.Index, job, { jobId: 'j1' });
    await tick(10);
    expect(runs.length).toBe(1);
    expect(await bus.depths()).toEqual({ [QueueName.Index]: 1 });
    await expect(bus.waitFor(QueueName.Index, 'j1', 2000)).resolves.toEqual({ indexed: 1 });
    expect(runs.length).toBe(3);
    expect(runs[2] - runs[0]).toBeGreaterThanOrEqual(70);
    expect(await bus.depths()).toEqual({ [QueueName.Index]: 0 });
  });
});

describe('InProcessJobBus withdrawal (docs/limits-and-security.md, "A client that goes away")', () => {
  const JOB = { query: 'q', recentMessages: [], latestArchiveOverview: '', timeoutMs: 5000 };
  /** A handler that runs until its signal aborts, and says whether it did. */
  const heeding = (bus: InProcessJobBus, seen: { aborted?: unknown }) =>
    bus.register(QueueName.Expand, (_d, signal) => {
      return new Promise((_, reject) =>
        signal?.addEventListener('abort', () => {
          seen.aborted = signal.reason ?? true;
          reject(new Error('aborted'));
        }),
      );
    });

  it("aborts a running job's signal when the caller's signal aborts, and rejects with the signal's reason", async () => {
    const bus = new InProcessJobBus();
    const seen: { aborted?: unknown } = {};
    heeding(bus, seen);
    const cut = new AbortController();
    const call = bus.call(QueueName.Expand, JOB, { timeoutMs: 5000, signal: cut.signal });
    await tick();
    expect(seen.aborted).toBeUndefined();
    cut.abort(new Error('circuit opened'));
    await expect(call).rejects.toThrow('circuit opened');
    expect(seen.aborted).toBeDefined();
  });

  it('aborts it when the caller stops waiting at its deadline', async () => {
    const bus = new InProcessJobBus();
    const seen: { aborted?: unknown } = {};
    heeding(bus, seen);
    const call = bus.call(QueueName.Expand, JOB, { timeoutMs: 100 });
    await expect(call).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(seen.aborted).toBeDefined();
  });

  it("aborts it when the request's client goes away (client_gone), and not while the client stays", async () => {
    const bus = new InProcessJobBus();
    const seen: { aborted?: unknown } = {};
    heeding(bus, seen);
    const gone = new AbortController();
    const call = runInWorkContext({ requestId: 'r1', abandoned: gone.signal }, () =>
      bus.call(QueueName.Expand, JOB, { timeoutMs: 5000 }),
    );
    await tick(50);
    expect(seen.aborted).toBeUndefined();
    gone.abort();
    await expect(call).rejects.toMatchObject({ details: { reason: 'client_gone' } });
    expect(seen.aborted).toBeDefined();
  });
});

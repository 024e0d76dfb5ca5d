import { QueueName } from '@app/contracts';
import { InProcessJobBus } from './in-process-job-bus';

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
});

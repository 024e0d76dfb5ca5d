import { AssembleJob, FindJob, FindResult, IndexJob, QueueName } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { InProcessJobBus } from './in-process-job-bus';
import { indexJobId } from './job-options';
import { AssembleClient, FindClient, IndexClient } from './queue-clients';

// The typed clients over the in-process bus (the single-process twin of the BullMQ bus): each runs its own
// queue, hands back the worker's result, and decodes a worker's coded failure into its KernelError.

const identity = { accountId: 'acme', userId: 'ann', role: 'user' as const, actorPeerId: null };
const FIND: FindJob = {
  identity,
  query: 'kestrel',
  targets: ['viking://user/ann'],
  filter: null,
  levels: null,
  limit: 3,
  scoreThreshold: null,
};
const EMPTY: FindResult = { memories: [], resources: [], skills: [], total: 0 };

describe('typed queue clients over the in-process job bus', () => {
  it('a request client runs its own queue and returns the result (job meta stripped by the worker side)', async () => {
    const bus = new InProcessJobBus();
    const seen: string[] = [];
    bus.register(QueueName.Find, async (d) => {
      seen.push(`find:${(d as FindJob).query}`);
      return EMPTY;
    });
    bus.register(QueueName.Assemble, async () => {
      seen.push('assemble');
      return { entries: [], rendered: '', plan: {}, bodiesRead: 0 };
    });
    await expect(new FindClient(bus).call(FIND, 1000)).resolves.toEqual(EMPTY);
    expect(seen).toEqual(['find:kestrel']);
    const job: AssembleJob = { identity, candidates: [], maxTokens: 64, detail: null };
    await new AssembleClient(bus).call(job, 1000);
    expect(seen).toEqual(['find:kestrel', 'assemble']);
  });

  it("decodes a worker's coded failure into the KernelError it stood for; an uncoded one stays as it is", async () => {
    const bus = new InProcessJobBus();
    let failure: Error = new Error('INVALID_ARGUMENT: filter regex is not valid');
    bus.register(QueueName.Find, async () => {
      throw failure;
    });
    const client = new FindClient(bus);
    const coded = await client.call(FIND, 1000).catch((e: unknown) => e);
    expect(coded).toBeInstanceOf(KernelError);
    expect([(coded as KernelError).code, (coded as KernelError).message]).toEqual([
      KernelErrorCode.InvalidArgument,
      'filter regex is not valid',
    ]);
    failure = new Error('socket hang up');
    const plain = await client.call(FIND, 1000).catch((e: unknown) => e);
    expect(plain).not.toBeInstanceOf(KernelError);
    expect((plain as Error).message).toBe('socket hang up');
  });

  it('a call past its deadline is DEADLINE_EXCEEDED', async () => {
    const bus = new InProcessJobBus();
    bus.register(QueueName.Find, () => new Promise((r) => setTimeout(() => r(EMPTY), 200)));
    const late = await new FindClient(bus).call(FIND, 20).catch((e: unknown) => e);
    expect((late as KernelError).code).toBe(KernelErrorCode.DeadlineExceeded);
  });

  it('the index client adds under the deterministic id of the outbox entry and can wait for it', async () => {
    const bus = new InProcessJobBus();
    const ran: number[] = [];
    bus.register(QueueName.Index, async (d) => {
      ran.push((d as IndexJob).outboxId);
      return { indexed: 1 } as never;
    });
    const job = { accountId: 'acme', outboxId: 7 } as IndexJob;
    const client = new IndexClient(bus);
    const id = await client.enqueue(job);
    expect(id).toBe(indexJobId(job));
    await expect(client.waitFor(id, 1000)).resolves.toEqual({ indexed: 1 });
    expect(ran).toEqual([7]);
  });

  it("an index job id names the entry's creation stamp: entry 7 of a new store is not entry 7 of the old one", () => {
    const old = indexJobId({ accountId: 'acme', outboxId: 7, stamp: '1796203334043000' });
    const fresh = indexJobId({ accountId: 'acme', outboxId: 7, stamp: '1796207721038123' });
    expect(old).not.toBe(fresh);
    expect(fresh).toBe('idx-YWNtZQ-7-1796207721038123');
    // A payload from before stamps existed keeps the old form (an index job run twice is harmless: idempotent).
    expect(indexJobId({ accountId: 'acme', outboxId: 7 })).toBe('idx-YWNtZQ-7');
  });
});

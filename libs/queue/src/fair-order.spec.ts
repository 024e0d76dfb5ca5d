import { Job, Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { IndexJob, QueueName } from '@app/contracts';
import { BullJobBus } from './bull-job-bus';
import { FairOrder, LOWEST_PRIORITY } from './fair-order';
import { fairShare } from './job-options';
import { redisOptions } from './redis-connection';

const url = () => process.env.REDIS_URL as string;
const indexJob = (accountId: string, outboxId: number, files = 1): IndexJob => ({
  accountId,
  outboxId,
  op: 'upsert',
  uris: Array.from({ length: files }, (_, i) => `viking://resources/f${outboxId}-${i}.md`),
});

describe('fair order of the background queues (real Redis)', () => {
  let redis: Redis;
  const prefix = `fair-spec-${process.pid}-${Date.now()}`;

  beforeAll(() => {
    redis = new Redis({ ...redisOptions(url()), maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it("counts each account's work per queue within the window, weighted, clamped to BullMQ's range", async () => {
    const fair = new FairOrder(redis, `${prefix}-count`, 60_000);
    const a = { account: 'acct-a', weight: 1 };
    expect(await fair.priority(QueueName.Index, a)).toBe(1);
    expect(await fair.priority(QueueName.Index, a)).toBe(2);
    expect(await fair.priority(QueueName.Index, { account: 'acct-a', weight: 5 })).toBe(7);
    // Another account, and the same account on another queue, count from the start.
    expect(await fair.priority(QueueName.Index, { account: 'acct-b', weight: 1 })).toBe(1);
    expect(await fair.priority(QueueName.Extract, a)).toBe(1);
    expect(await fair.priority(QueueName.Index, { account: 'huge', weight: 3_000_000 })).toBe(LOWEST_PRIORITY);
    // The window opens with the account's first job and is not pushed back by later ones.
    const keys = await redis.keys(`${prefix}-count:fair:index:*`);
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  /** A's backlog of six index jobs, then one of B's; one worker takes them one at a time. */
  async function runOrder(fair: FairOrder | null, queuePrefix: string): Promise<string[]> {
    const connection = redisOptions(url());
    const queue = new Queue(QueueName.Index, { connection, prefix: queuePrefix });
    const bus = new BullJobBus(
      new Map([[QueueName.Index, queue]]),
      (q) => new QueueEvents(q, { connection, prefix: queuePrefix }),
      fair,
    );
    for (let i = 1; i <= 6; i++) await bus.enqueue(QueueName.Index, indexJob('tenant-a', i), { jobId: `a${i}` });
    await bus.enqueue(QueueName.Index, indexJob('tenant-b', 1), { jobId: 'b1' });
    const order: string[] = [];
    const worker = new Worker(
      QueueName.Index,
      async (job: Job) => {
        order.push(job.id as string);
      },
      { connection, prefix: queuePrefix, concurrency: 1 },
    );
    try {
      while (order.length < 7) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.close();
      await bus.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
    return order;
  }

  it("runs a small tenant's job before another tenant's backlog; first in, first out without it", async () => {
    const fair = await runOrder(new FairOrder(redis, `${prefix}-bus`, 60_000), `${prefix}-bus`);
    expect(fair).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    const fifo = await runOrder(null, `${prefix}-fifo`);
    expect(fifo).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1']);
  });

  it('weighs an index job by its files, a commit by its archived tokens, a sidecar as one; request paths and idle commits stay FIFO', () => {
    expect(fairShare(QueueName.Index, indexJob('c', 1, 5))).toEqual({ account: 'c', weight: 5 });
    expect(fairShare(QueueName.Sidecar, { accountId: 'c', uri: 'viking://resources' })).toEqual({
      account: 'c',
      weight: 1,
    });
    expect(fairShare(QueueName.Extract, { accountId: 'c', taskId: 't' })).toEqual({ account: 'c', weight: 1 });
    const commit = (archivedTokens: number) => fairShare(QueueName.Extract, { accountId: 'c', archivedTokens })?.weight;
    expect([commit(0), commit(1), commit(4000), commit(4001), commit(400_000)]).toEqual([1, 1, 1, 2, 100]);
    expect([commit(-5), commit(Number.NaN), commit(Number.POSITIVE_INFINITY)]).toEqual([1, 1, 1]);
    // MUNINN_FAIR_EXTRACT_TOKENS: another unit, or 0 for one per commit.
    const per = (extractTokens: number) =>
      fairShare(QueueName.Extract, { accountId: 'c', archivedTokens: 10_000 }, { extractTokens })?.weight;
    expect([per(1000), per(0)]).toEqual([10, 1]);
    const order = new FairOrder(redis, `${prefix}-weights`, 60_000, { extractTokens: 500 });
    expect(order.shareOf(QueueName.Extract, { accountId: 'c', archivedTokens: 1_000 })).toEqual({
      account: 'c',
      weight: 2,
    });
    for (const q of [QueueName.Find, QueueName.Scan, QueueName.Assemble, QueueName.Expand, QueueName.Digest]) {
      expect(fairShare(q, { accountId: 'c' })).toBeNull();
    }
    expect(fairShare(QueueName.SessionExtract, { accountId: 'c' })).toBeNull();
    expect(fairShare(QueueName.SessionIdle, { accountId: 'c' })).toBeNull();
  });
});

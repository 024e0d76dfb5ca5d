import { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { QueueName, SidecarJob } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { InMemoryQueueActivity, QueueActivity, RedisQueueActivity } from './queue-activity';
import { QueueProcessor } from './queue-processor';

class Sidecars extends QueueProcessor<QueueName.Sidecar> {
  constructor(
    private readonly work: () => Promise<{ refreshed: number }>,
    activity: QueueActivity,
  ) {
    super(QueueName.Sidecar);
    // Nest injects this property; a hand-built processor gets it the same way, by name.
    Object.assign(this, { activity });
  }
  protected isPayload(d: unknown): d is SidecarJob {
    return typeof (d as SidecarJob)?.uri === 'string';
  }
  protected run() {
    return this.work();
  }
}

const JOB: SidecarJob = { accountId: 'a', uri: 'viking://resources' };
const bullJob = (data: unknown, attemptsMade: number, attempts: number) =>
  ({ data, attemptsMade, opts: { attempts }, id: '1', timestamp: Date.now() }) as unknown as Job;

describe('job outcomes counted by the processor base', () => {
  it('counts a success, a failed attempt with retries left, and a final failure with its message', async () => {
    const activity = new InMemoryQueueActivity({ kept: 2, maxChars: 100 });
    const ok = new Sidecars(async () => ({ refreshed: 1 }), activity);
    const down = new Sidecars(async () => {
      throw new KernelError(KernelErrorCode.Unavailable, 'db away');
    }, activity);
    await ok.process(bullJob(JOB, 0, 3));
    await expect(down.process(bullJob(JOB, 0, 3))).rejects.toThrow('UNAVAILABLE: db away');
    await expect(down.process(bullJob(JOB, 2, 3))).rejects.toThrow('UNAVAILABLE: db away');
    // A malformed payload fails for good even with attempts left; the in-process path never retries.
    await expect(ok.process(bullJob({ nope: 1 }, 0, 3))).rejects.toThrow('malformed');
    await expect(down.handle(JOB)).rejects.toThrow('db away');
    const snap = (await activity.snapshot([QueueName.Sidecar, QueueName.Find])) as Record<string, any>;
    expect(snap.sidecar.counters).toEqual({ processed: 1, retried: 1, failed: 3 });
    // Newest first, capped at `kept`.
    expect(snap.sidecar.recent.map((f: { message: string }) => f.message)).toEqual([
      'UNAVAILABLE: db away',
      'INTERNAL: malformed sidecar job payload',
    ]);
    expect(snap.find).toEqual({ counters: { processed: 0, retried: 0, failed: 0 }, recent: [] });
  });

  it('never lets a broken recorder change the job outcome', async () => {
    const broken = {
      record: () => {
        throw new Error('recorder bug');
      },
    } as unknown as QueueActivity;
    await expect(new Sidecars(async () => ({ refreshed: 2 }), broken).handle(JOB)).resolves.toEqual({ refreshed: 2 });
  });
});

describe('RedisQueueActivity while Redis is unreachable', () => {
  it('lets the job finish as it would have, and the snapshot fails instead of inventing zeros', async () => {
    const redis = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    try {
      const activity = new RedisQueueActivity(redis, 'unreachable', { kept: 5, maxChars: 100 });
      const p = new Sidecars(async () => ({ refreshed: 3 }), activity);
      await expect(p.handle(JOB)).resolves.toEqual({ refreshed: 3 });
      await expect(activity.snapshot([QueueName.Sidecar])).rejects.toThrow();
    } finally {
      redis.disconnect();
    }
  });
});

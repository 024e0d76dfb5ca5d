import { Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { ExtractJob, QueueName } from '@app/contracts';
import { eventually } from '@app/testing';
import { BullJobBus } from './bull-job-bus';
import { redisOptions } from './redis-connection';

const job = (taskId: string): ExtractJob => ({
  accountId: 'acct',
  userId: 'u',
  sessionId: 's',
  archiveIndex: 1,
  taskId,
  eventTags: [],
});

/** The task relay asks the bus whether a job failed for good before it adds the same id again (real Redis). */
describe('BullJobBus.failure', () => {
  const prefix = `bus-failure-spec-${process.pid}-${Date.now()}`;
  const connection = () => redisOptions(process.env.REDIS_URL as string);
  let queue: Queue;
  let bus: BullJobBus;

  beforeAll(() => {
    queue = new Queue(QueueName.Extract, { connection: connection(), prefix });
    const events = (q: string, lastEventId: string) =>
      new QueueEvents(q, { connection: connection(), prefix, lastEventId, autorun: false });
    bus = new BullJobBus(new Map([[QueueName.Extract, queue]]), events);
  });

  afterAll(async () => {
    await bus.close();
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('is null for a job that is not there, and for one still waiting', async () => {
    expect(await bus.failure(QueueName.Extract, 'never-added')).toBeNull();
    await bus.enqueue(QueueName.Extract, job('waiting'), { jobId: 'waiting' });
    expect(await queue.getJobState('waiting')).toBe('waiting');
    expect(await bus.failure(QueueName.Extract, 'waiting')).toBeNull();
  });

  it("is the job's reason once it failed for good, and null for a job that completed", async () => {
    await queue.drain();
    await bus.enqueue(QueueName.Extract, job('doomed'), { jobId: 'doomed' });
    await bus.enqueue(QueueName.Extract, job('fine'), { jobId: 'fine' });
    const worker = new Worker(
      QueueName.Extract,
      async (j) => {
        if (j.id === 'doomed') throw new UnrecoverableError('the archive cannot be read');
        return { status: 'completed' };
      },
      { connection: connection(), prefix },
    );
    try {
      const state = (id: string) => queue.getJobState(id);
      await eventually(async () => (await state('doomed')) === 'failed' && (await state('fine')) === 'completed');
    } finally {
      await worker.close();
    }
    expect(await bus.failure(QueueName.Extract, 'doomed')).toBe('the archive cannot be read');
    expect(await bus.failure(QueueName.Extract, 'fine')).toBeNull();
  });
});

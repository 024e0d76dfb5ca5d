import { Job, Queue, QueueEvents, Worker } from 'bullmq';
import { IndexJob, QueueName } from '@app/contracts';
import { KernelErrorCode } from '@app/kernel';
import { BullJobBus } from './bull-job-bus';
import { redisOptions } from './redis-connection';

const url = () => process.env.REDIS_URL as string;
const job: IndexJob = { accountId: 'acct', outboxId: 1, op: 'upsert', uris: ['viking://resources/a.md'] };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A waiter checks once whether its job finished, then listens on the queue's shared event reader. The
 * reader's first XREAD reaches Redis some time after the reader is ready; a job that finishes in between
 * must still be heard of (a `wait: true` write once waited out its 30 s for a job done at once).
 */
describe('the bus hears a job that finished before its event reader started reading (real Redis)', () => {
  const prefix = `bus-events-spec-${process.pid}-${Date.now()}`;

  /**
   * Waits for a job through a bus whose event reader starts reading only when the test says, after a
   * worker finished the job. `honour` false: the reader ignores the id the bus gives it (BullMQ's `$`).
   */
  async function finishedBeforeReading(honour: boolean, queuePrefix: string) {
    const connection = redisOptions(url());
    const queue = new Queue(QueueName.Index, { connection, prefix: queuePrefix });
    const readers: QueueEvents[] = [];
    const bus = new BullJobBus(new Map([[QueueName.Index, queue]]), (q, lastEventId) => {
      const reader = new QueueEvents(q, {
        connection,
        prefix: queuePrefix,
        autorun: false,
        ...(honour ? { lastEventId } : {}),
      });
      readers.push(reader);
      return reader;
    });
    // Events before the reader was made are not the waiter's: the stream is not read from its start.
    await queue.add('earlier', {}, { jobId: 'earlier' });
    await bus.enqueue(QueueName.Index, job, { jobId: 'j1' });
    const outcome = bus.waitFor(QueueName.Index, 'j1', 4000).then(
      (value) => ({ value }),
      (error: { code?: string }) => ({ error: error.code }),
    );
    // The waiter's one check finds the job unfinished (no worker yet); then a worker finishes it.
    await pause(300);
    const worker = new Worker(QueueName.Index, async (j: Job) => ({ done: j.id }), {
      connection,
      prefix: queuePrefix,
    });
    try {
      while ((await queue.getJobState('j1')) !== 'completed') await pause(20);
      expect(readers).toHaveLength(1);
      void readers[0]!.run().catch(() => undefined);
      return await outcome;
    } finally {
      await worker.close();
      await bus.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }

  it('reads from the stream as it stood when the reader was made, so the finish is heard', async () => {
    expect(await finishedBeforeReading(true, `${prefix}-from`)).toEqual({ value: { done: 'j1' } });
  });

  it('without that, the waiter waits out its timeout for a job long done (what the bus avoids)', async () => {
    expect(await finishedBeforeReading(false, `${prefix}-dollar`)).toEqual({
      error: KernelErrorCode.DeadlineExceeded,
    });
  });
});

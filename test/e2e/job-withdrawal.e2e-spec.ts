// docs/limits-and-security.md, "A client that goes away": a request-scoped job its caller stops waiting for
// is withdrawn. On real Redis and BullMQ, with the producer's bus and the worker on connections of their own
// (as a gateway and a rewriter): a job no worker has started is removed and never runs; a running one is
// aborted by its worker, which hears the withdrawal on the deployment's channel. A caller stops waiting when its
// circuit lets the call go (its signal), its client goes away, or its deadline passes.
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ExpandJob, QueueName } from '@app/contracts';
import { BullJobBus, JobWithdrawals, redisOptions, runInWorkContext, WithdrawalReceipt } from '@app/queue';
import { deletePrefix, eventually, uniqueTestPrefix } from '@app/testing';

const JOB: ExpandJob = { query: 'q', latestArchiveOverview: '', recentMessages: [], timeoutMs: 20_000 };

describe('withdrawing a request-scoped job (real Redis and BullMQ)', () => {
  const url = process.env.REDIS_URL as string;
  const prefix = uniqueTestPrefix('withdraw');
  const connection = { ...redisOptions(url), maxRetriesPerRequest: null };
  const started: string[] = [];
  const aborted: string[] = [];
  let producer: Redis;
  let workerSide: Redis;
  let queue: Queue;
  let worker: Worker;
  let bus: BullJobBus;
  let heard: JobWithdrawals;
  let told: JobWithdrawals;

  const call = (signal?: AbortSignal, timeoutMs = 20_000, receipt?: WithdrawalReceipt) =>
    bus.call(QueueName.Expand, JOB, { timeoutMs, signal, receipt }).then(
      () => new Error('answered'),
      (e: unknown) => e as Error,
    );

  beforeAll(async () => {
    producer = new Redis(connection);
    workerSide = new Redis(connection);
    queue = new Queue(QueueName.Expand, { connection, prefix });
    // Runs one job at a time until its signal aborts (three declared parameters: BullMQ hands it the signal).
    worker = new Worker(
      QueueName.Expand,
      (job, _token, signal) =>
        new Promise((_, reject) => {
          started.push(job.id as string);
          signal?.addEventListener('abort', () => {
            aborted.push(job.id as string);
            reject(new Error('aborted'));
          });
        }),
      { connection, prefix, concurrency: 1 },
    );
    heard = new JobWithdrawals(workerSide, prefix);
    heard.watch(worker);
    told = new JobWithdrawals(producer, prefix);
    const events = (q: string) => new QueueEvents(q, { connection, prefix });
    bus = new BullJobBus(new Map([[QueueName.Expand, queue]]), events, null, told);
    await worker.waitUntilReady();
    const channel = `${prefix}:job-withdrawals`;
    await eventually(async () => ((await producer.pubsub('NUMSUB', channel)) as [string, number])[1] === 1, {
      ms: 5000,
      pollMs: 20,
    });
  });

  afterAll(async () => {
    await worker?.close(true);
    await bus?.close();
    await queue?.close();
    heard?.onModuleDestroy();
    await Promise.all([producer?.quit(), workerSide?.quit()]);
    await deletePrefix(url, prefix);
  });

  it('removes a waiting job (its caller told it never ran), and aborts a running one on its worker (cut, client gone, deadline); a job left alone runs on', async () => {
    const a = new AbortController();
    const firstReceipt = new WithdrawalReceipt();
    const first = call(a.signal, 20_000, firstReceipt);
    await eventually(async () => started.length === 1, { ms: 5000, pollMs: 20 });

    // The worker is busy: the second job waits in the queue; withdrawn, it is removed and never runs.
    const b = new AbortController();
    const secondReceipt = new WithdrawalReceipt();
    const second = call(b.signal, 20_000, secondReceipt);
    await eventually(async () => (await queue.getWaitingCount()) === 1, { ms: 5000, pollMs: 20 });
    b.abort(new Error('circuit opened'));
    expect((await second).message).toBe('circuit opened');
    // Its caller learns it never started (a model call's reservation can be given back).
    expect(await secondReceipt.neverStarted()).toBe(true);
    await eventually(async () => (await queue.getWaitingCount()) === 0, { ms: 5000, pollMs: 20 });
    // So is one whose deadline passes while it waits.
    const queuedReceipt = new WithdrawalReceipt();
    expect(await call(undefined, 300, queuedReceipt)).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(await queuedReceipt.neverStarted()).toBe(true);
    expect(await queue.getWaitingCount()).toBe(0);

    // Nobody withdrew the first: it still runs.
    await new Promise((r) => setTimeout(r, 300));
    expect(aborted).toEqual([]);
    a.abort(new Error('circuit opened'));
    expect((await first).message).toBe('circuit opened');
    await eventually(async () => aborted.length === 1, { ms: 5000, pollMs: 20 });
    expect(aborted).toEqual([started[0]]);
    // A worker had it: it may have sent what it sends.
    expect(await firstReceipt.neverStarted()).toBe(false);

    // A request whose client goes away withdraws its running job the same way.
    const gone = new AbortController();
    const third = runInWorkContext({ requestId: 'r-gone', abandoned: gone.signal }, () => call());
    await eventually(async () => started.length === 2, { ms: 5000, pollMs: 20 });
    gone.abort();
    expect(await third).toMatchObject({ details: { reason: 'client_gone' } });
    await eventually(async () => aborted.length === 2, { ms: 5000, pollMs: 20 });
    // So does a caller whose deadline passed: nobody waits for the job any more.
    const lateReceipt = new WithdrawalReceipt();
    const late = await call(undefined, 500, lateReceipt);
    expect(late).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(await lateReceipt.neverStarted()).toBe(false);
    await eventually(async () => aborted.length === 3, { ms: 5000, pollMs: 20 });
    // The waiting jobs never ran.
    expect(started).toEqual(aborted);
    expect(started).toHaveLength(3);
  });
});

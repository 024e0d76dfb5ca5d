import { SpanKind } from '@opentelemetry/api';
import { Job, JobsOptions, Queue, QueueEvents } from 'bullmq';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { JobOf, QueueName, ResultOf } from '@app/contracts';
import { CallOptions, EnqueueOptions, JobBus, QueueKey } from './job-bus.port';
import { decodeJobFailure } from './job-failure-decode';
import { currentJobMeta, throwIfClientGone, whileWanted, withJobMeta } from './job-context';
import { FairOrder } from './fair-order';
import { JobWithdrawals } from './job-withdrawals';
import { jobOptions } from './job-options';
import { inSpan } from './tracing';
import { withTimeout } from './with-timeout';

/** {@link JobBus} over BullMQ: results come back through one shared `QueueEvents` stream per queue. */
export class BullJobBus extends JobBus {
  private readonly events = new Map<string, Promise<QueueEvents>>();

  constructor(
    private readonly queues: Map<QueueName, Queue>,
    /** Reads a queue's event stream from just after `lastEventId` (see {@link BullJobBus.eventsFor}). */
    private readonly makeEvents: (queue: QueueName, lastEventId: string) => QueueEvents,
    /** Orders the background queues by each account's recent work; null: first in, first out. */
    private readonly fair: FairOrder | null = null,
    /** Tells the workers a started job is withdrawn; null: a withdrawn job that started runs to its deadline. */
    private readonly withdrawals: JobWithdrawals | null = null,
  ) {
    super();
    // waitUntilFinished adds one listener per call in flight; hundreds in flight are normal here.
    for (const q of queues.values()) q.setMaxListeners(0);
  }

  async enqueue<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: EnqueueOptions = {}): Promise<void> {
    await this.add(queue, data, undefined, opts.jobId, {
      ...(opts.delayMs && opts.delayMs > 0 ? { delay: Math.round(opts.delayMs) } : {}),
      ...(opts.coalesceKey
        ? { deduplication: { id: opts.coalesceKey, keepLastIfActive: true, reschedule: opts.reschedule === true } }
        : {}),
    });
  }

  async call<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: CallOptions): Promise<ResultOf<Q>> {
    throwIfClientGone();
    const events = await this.eventsFor(queue).catch((err: unknown) => Promise.reject(unavailable(err)));
    // The deadline travels with the job: past it the worker drops the job instead of running it late.
    const job = await this.add(queue, data, Date.now() + opts.timeoutMs, opts.jobId);
    // A caller that stops waiting (past its deadline, its client gone, or its circuit letting the call go)
    // withdraws its job: removed if no worker has it yet, else aborted by its worker.
    const withdraw = () => {
      const back = this.takeBack(queue, job);
      opts.receipt?.record(back);
    };
    return whileWanted(this.await<Q>(job, events, queue, opts.timeoutMs, withdraw), opts.signal, withdraw);
  }

  async waitFor<Q extends QueueKey>(queue: Q, jobId: string, timeoutMs: number): Promise<ResultOf<Q>> {
    const events = await this.eventsFor(queue).catch((err: unknown) => Promise.reject(unavailable(err)));
    const job = await this.whileConnected(queue, (q) => Job.fromId(q, jobId));
    if (!job) throw new KernelError(KernelErrorCode.NotFound, `Job not found: ${jobId}`);
    return this.await<Q>(job, events, queue, timeoutMs);
  }

  async depths(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of this.queues.keys()) {
      const c = await this.whileConnected(name, (q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized'));
      out[name] = Object.values(c).reduce((a, b) => a + b, 0);
    }
    return out;
  }

  async consumers(): Promise<Record<string, number>> {
    const names = [...this.queues.keys()];
    const counts = await Promise.all(names.map((name) => this.whileConnected(name, (q) => q.getWorkersCount())));
    return Object.fromEntries(names.map((n, i) => [n, counts[i]]));
  }

  async failure(queue: QueueKey, jobId: string): Promise<string | null> {
    const job = await this.whileConnected(queue, (q) => Job.fromId(q, jobId));
    if (!job) return null;
    const state = await this.whileConnected(queue, () => job.getState());
    return state === 'failed' ? job.failedReason || 'failed' : null;
  }

  /** Closes the shared event streams (queues are closed by their module). */
  async close(): Promise<void> {
    const all = await Promise.allSettled([...this.events.values()]);
    await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
  }

  /**
   * Withdraws a called job; true when it was taken back before any worker started it. A waiting job is
   * removed (BullMQ refuses to remove one a worker holds: a refusal means it started meanwhile); a running
   * one is named on the withdrawal channel for its worker to abort. Two commands, not one: a job a worker
   * took and finished between them would be removed as finished and taken for never started, which needs a
   * worker to run it whole within one Redis round trip. Never rejects: Redis away, the job is taken to have run.
   */
  private async takeBack(queue: QueueName, job: Job): Promise<boolean> {
    try {
      const state = await this.whileConnected(queue, () => job.getState());
      if (state === 'completed' || state === 'failed') return false;
      if (state !== 'active') {
        await this.whileConnected(queue, () => job.remove());
        return true;
      }
    } catch {
      // Started meanwhile, or Redis away: its worker is told, if it can hear.
    }
    if (job.id && this.withdrawals) await this.withdrawals.withdraw(queue, job.id);
    return false;
  }

  private queue(name: QueueName): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`Queue not registered: ${name}`);
    return q;
  }

  /**
   * Adds one job in a producer span; its meta (request id, trace parent, deadline) is taken inside it.
   * A background job gets its place in the fair order here, so every producer (the gateway, the relays,
   * the extractor) adds it the same way: a job of such a queue without a priority would run before all.
   */
  private add(queue: QueueName, payload: unknown, deadlineAt?: number, jobId?: string, extra: JobsOptions = {}) {
    const opts: JobsOptions = { ...jobOptions(queue), ...extra, ...(jobId ? { jobId } : {}) };
    const share = this.fair ? this.fair.shareOf(queue, payload) : null;
    return inSpan(`${queue} send`, SpanKind.PRODUCER, () => {
      const data = withJobMeta(payload, currentJobMeta(deadlineAt));
      return this.whileConnected(queue, async (q) => {
        const priority = share && this.fair ? await this.fair.priority(queue, share) : undefined;
        return q.add(queue, data, priority ? { ...opts, priority } : opts);
      });
    });
  }

  /**
   * Runs one command against the queue, failing fast with UNAVAILABLE while its connection is down:
   * queue connections keep an offline queue (workers need it to resume), so without this check a
   * producer would wait for Redis to return instead of answering 503. A command that the connection
   * drop catches in flight is given up after {@link COMMAND_TIMEOUT_MS}.
   */
  private async whileConnected<T>(name: QueueName, command: (q: Queue) => Promise<T>): Promise<T> {
    const q = this.queue(name);
    try {
      const client = await withTimeout(q.getBackend().client, COMMAND_TIMEOUT_MS);
      if (client.status !== 'ready') throw new Error(`connection ${client.status}`);
      return await withTimeout(command(q), COMMAND_TIMEOUT_MS);
    } catch (err) {
      throw unavailable(err);
    }
  }

  private async await<Q extends QueueKey>(
    job: Job,
    events: QueueEvents,
    queue: Q,
    timeoutMs: number,
    onTimeout: () => void = () => undefined,
  ): Promise<ResultOf<Q>> {
    try {
      return (await job.waitUntilFinished(events, timeoutMs)) as ResultOf<Q>;
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (/timed out before finishing/i.test(msg)) {
        onTimeout();
        throw new KernelError(KernelErrorCode.DeadlineExceeded, `${queue} job timed out after ${timeoutMs / 1000}s`, {
          operation: queue,
          timeout: timeoutMs / 1000,
        });
      }
      throw decodeJobFailure(err);
    }
  }

  /**
   * The queue's shared event reader, reading from the stream's newest entry as it stood before the reader
   * was made. A reader left to start at `$` (BullMQ's default) reads only what arrives after its first
   * XREAD reaches Redis, which is after `waitUntilReady`: a job finished between a waiter's own check
   * (`waitUntilFinished` looks once, then listens) and that XREAD was never heard of, and its waiter
   * waited out its whole timeout for a job long done (a `wait: true` write answered 504 after 30 s on a
   * loaded machine; docs/operations.md, "Queue processors").
   */
  private eventsFor(queue: QueueName): Promise<QueueEvents> {
    let p = this.events.get(queue);
    if (!p) {
      p = this.lastEventId(queue).then((id) => {
        const ev = this.makeEvents(queue, id);
        return withTimeout(ev.waitUntilReady(), COMMAND_TIMEOUT_MS).then(
          () => ev,
          (err: unknown) => {
            void ev.close().catch(() => undefined);
            throw err;
          },
        );
      });
      p.catch(() => this.events.delete(queue));
      this.events.set(queue, p);
    }
    return p;
  }

  /** The id of the newest entry of the queue's event stream, `0-0` while it has none. */
  private async lastEventId(queue: QueueName): Promise<string> {
    const newest = await this.whileConnected(queue, async (q) => {
      const client = await q.getBackend().client;
      return (await client.runCommand('xrevrange', [q.keys.events, '+', '-', 'COUNT', '1'])) as [string, unknown][];
    });
    return newest[0]?.[0] ?? '0-0';
  }
}

const COMMAND_TIMEOUT_MS = 3000;

function unavailable(err: unknown): KernelError {
  if (err instanceof KernelError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new KernelError(KernelErrorCode.Unavailable, `Queue unavailable: ${msg}`, { service: 'redis', reason: msg });
}

import { Job, JobsOptions, Queue, QueueEvents } from 'bullmq';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { JobOf, QueueName, ResultOf } from '@app/contracts';
import { EnqueueOptions, JobBus, QueueKey } from './job-bus.port';
import { decodeJobFailure } from './job-failure-decode';
import { currentJobMeta, withJobMeta } from './job-context';
import { jobOptions } from './job-options';

/** {@link JobBus} over BullMQ: results come back through one shared `QueueEvents` stream per queue. */
export class BullJobBus extends JobBus {
  private readonly events = new Map<string, Promise<QueueEvents>>();

  constructor(
    private readonly queues: Map<QueueName, Queue>,
    private readonly makeEvents: (queue: QueueName) => QueueEvents,
  ) {
    super();
    // waitUntilFinished adds one listener per call in flight; hundreds in flight are normal here.
    for (const q of queues.values()) q.setMaxListeners(0);
  }

  async enqueue<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: EnqueueOptions = {}): Promise<void> {
    await this.add(queue, withJobMeta(data, currentJobMeta()), opts.jobId, {
      ...(opts.delayMs && opts.delayMs > 0 ? { delay: Math.round(opts.delayMs) } : {}),
      ...(opts.coalesceKey ? { deduplication: { id: opts.coalesceKey, keepLastIfActive: true } } : {}),
    });
  }

  async call<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: { timeoutMs: number; jobId?: string }): Promise<ResultOf<Q>> {
    const events = await this.eventsFor(queue);
    // The deadline travels with the job: past it the worker drops the job instead of running it late.
    const job = await this.add(queue, withJobMeta(data, currentJobMeta(Date.now() + opts.timeoutMs)), opts.jobId);
    return this.await<Q>(job, events, queue, opts.timeoutMs);
  }

  async waitFor<Q extends QueueKey>(queue: Q, jobId: string, timeoutMs: number): Promise<ResultOf<Q>> {
    const events = await this.eventsFor(queue);
    const job = await Job.fromId(this.queue(queue), jobId);
    if (!job) throw new KernelError(KernelErrorCode.NotFound, `Job not found: ${jobId}`);
    return this.await<Q>(job, events, queue, timeoutMs);
  }

  async depths(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, q] of this.queues) {
      const c = await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      out[name] = Object.values(c).reduce((a, b) => a + b, 0);
    }
    return out;
  }

  /** Closes the shared event streams (queues are closed by their module). */
  async close(): Promise<void> {
    const all = await Promise.allSettled([...this.events.values()]);
    await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
  }

  private queue(name: QueueName): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`Queue not registered: ${name}`);
    return q;
  }

  private async add(queue: QueueName, data: unknown, jobId?: string, extra: JobsOptions = {}): Promise<Job> {
    try {
      return await this.queue(queue).add(queue, data, { ...jobOptions(queue), ...extra, ...(jobId ? { jobId } : {}) });
    } catch (err) {
      throw unavailable(err);
    }
  }

  private async await<Q extends QueueKey>(job: Job, events: QueueEvents, queue: Q, timeoutMs: number): Promise<ResultOf<Q>> {
    try {
      return (await job.waitUntilFinished(events, timeoutMs)) as ResultOf<Q>;
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (/timed out before finishing/i.test(msg)) {
        throw new KernelError(KernelErrorCode.DeadlineExceeded, `${queue} job timed out after ${timeoutMs / 1000}s`, { operation: queue, timeout: timeoutMs / 1000 });
      }
      throw decodeJobFailure(err);
    }
  }

  private eventsFor(queue: QueueName): Promise<QueueEvents> {
    let p = this.events.get(queue);
    if (!p) {
      const ev = this.makeEvents(queue);
      p = ev.waitUntilReady().then(() => ev);
      p.catch(() => this.events.delete(queue));
      this.events.set(queue, p);
    }
    return p;
  }
}

function unavailable(err: unknown): KernelError {
  const msg = err instanceof Error ? err.message : String(err);
  return new KernelError(KernelErrorCode.Unavailable, `Queue unavailable: ${msg}`, { service: 'redis', reason: msg });
}

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { JobOf, QueueName, ResultOf } from '@app/contracts';
import { currentJobMeta, throwIfClientGone, whileWanted, withJobMeta } from './job-context';
import { decodeJobFailure } from './job-failure-decode';
import { JobDeferred } from './job-deferral';
import { CallOptions, EnqueueOptions, JobBus, QueueKey } from './job-bus.port';

/** A queue's consumer; `signal` aborts when the job's caller withdraws it. */
type Handler = (data: unknown, signal?: AbortSignal) => Promise<unknown>;

/** A coalesced job: scheduled and not started (`waiting`), or running with possibly one follow-up. */
interface Slot {
  waiting: boolean;
  next: { data: unknown; delayMs: number } | null;
  /** While waiting: its start, and the timer that will run it. */
  start: () => void;
  timer: NodeJS.Timeout | null;
}

/**
 * {@link JobBus} that runs handlers in this process, with the same deadline semantics as the queue:
 * for single-process runs without Redis, and as the performance floor of the queued path.
 */
export class InProcessJobBus extends JobBus {
  private readonly handlers = new Map<QueueName, Handler>();
  private readonly running = new Map<string, Promise<unknown>>();
  private readonly slots = new Map<string, Slot>();
  /**
   * Jobs per queue that are scheduled (delayed or coalesced, not started) or running: what BullMQ
   * counts as waiting, delayed and active. `running` cannot tell, it keeps finished jobs for waitFor.
   */
  private readonly busy = new Map<string, number>();

  /** Registers the consumer of a queue (each worker app's processor does this in in-process mode). */
  register(queue: QueueName, handler: Handler): void {
    this.handlers.set(queue, handler);
  }

  async enqueue<Q extends QueueKey>(queue: Q, payload: JobOf<Q>, opts: EnqueueOptions = {}): Promise<void> {
    const data = withJobMeta(payload, currentJobMeta());
    if (opts.coalesceKey) {
      return this.coalesce(queue, data, `${queue}/${opts.coalesceKey}`, opts.delayMs ?? 0, opts.reschedule === true);
    }
    // Nobody awaits a fire-and-forget job; its failure was logged once by the processor base.
    const start = () => void this.run(queue, data, opts.jobId ?? randomUUID()).catch(() => undefined);
    if (opts.delayMs && opts.delayMs > 0) this.later(queue, start, opts.delayMs);
    else start();
  }

  async call<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: CallOptions): Promise<ResultOf<Q>> {
    throwIfClientGone();
    const job = withJobMeta(data, currentJobMeta(Date.now() + opts.timeoutMs));
    const withdrawal = new AbortController();
    const running = this.run(queue, job, opts.jobId ?? randomUUID(), withdrawal);
    // As on BullMQ: a caller that stops waiting (its deadline, its client, its circuit) withdraws the job:
    // its handler's signal aborts.
    const withdraw = () => withdrawal.abort();
    const waited = withDeadline(running, queue, opts.timeoutMs, withdraw);
    return whileWanted(waited, opts.signal, withdraw) as Promise<ResultOf<Q>>;
  }

  async waitFor<Q extends QueueKey>(queue: Q, jobId: string, timeoutMs: number): Promise<ResultOf<Q>> {
    const p = this.running.get(`${queue}/${jobId}`);
    if (!p) throw new KernelError(KernelErrorCode.NotFound, `Job not found: ${jobId}`);
    return withDeadline(p, queue, timeoutMs) as Promise<ResultOf<Q>>;
  }

  async depths(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const q of this.handlers.keys()) out[q] = 0;
    for (const [q, n] of this.busy) if (n > 0) out[q] = n;
    return out;
  }

  async consumers(): Promise<Record<string, number>> {
    return Object.fromEntries([...this.handlers.keys()].map((q) => [q, 1]));
  }

  /** Never: an in-process job fails only inside its handler, which says so itself. */
  async failure(): Promise<string | null> {
    return null;
  }

  // Same contract as BullMQ's deduplication with keepLastIfActive (and reschedule): one waiting and one running
  // per key.
  private coalesce(queue: QueueName, data: unknown, key: string, delayMs: number, reschedule = false): void {
    const slot = this.slots.get(key);
    if (slot?.waiting) {
      if (reschedule && slot.timer) {
        clearTimeout(slot.timer);
        this.track(queue, -1);
        slot.timer = this.later(queue, slot.start, Math.max(0, delayMs));
      }
      return;
    }
    if (slot) {
      slot.next = { data, delayMs };
      return;
    }
    const fresh: Slot = { waiting: true, next: null, start: () => undefined, timer: null };
    this.slots.set(key, fresh);
    fresh.start = () => {
      fresh.waiting = false;
      fresh.timer = null;
      void this.run(queue, data, randomUUID())
        .catch(() => undefined) // logged once by the processor base
        .finally(() => {
          this.slots.delete(key);
          if (fresh.next) this.coalesce(queue, fresh.next.data, key, fresh.next.delayMs);
        });
    };
    fresh.timer = this.later(queue, fresh.start, Math.max(0, delayMs));
  }

  /** Schedules a start, counted as busy until it runs. */
  private later(queue: QueueName, start: () => void, delayMs: number): NodeJS.Timeout {
    this.track(queue, 1);
    return setTimeout(() => {
      this.track(queue, -1);
      start();
    }, delayMs).unref();
  }

  private track(queue: QueueName, n: number): void {
    this.busy.set(queue, (this.busy.get(queue) ?? 0) + n);
  }

  /** Runs the job of `jobId` once; a second call of that id waits for the first run (and cannot withdraw it). */
  private run(queue: QueueName, data: unknown, jobId: string, withdrawal?: AbortController): Promise<unknown> {
    const key = `${queue}/${jobId}`;
    const existing = this.running.get(key);
    if (existing) return existing;
    const handler = this.handlers.get(queue);
    if (!handler)
      return Promise.reject(new KernelError(KernelErrorCode.Unavailable, `No in-process consumer for queue ${queue}`));
    this.track(queue, 1);
    const p = Promise.resolve()
      .then(() => attempt(handler, data, withdrawal?.signal))
      .finally(() => {
        this.track(queue, -1);
        setTimeout(() => this.running.delete(key), 60_000).unref();
      });
    this.running.set(key, p);
    return p;
  }
}

/** Runs a job, again after each pause it asks for (a deferral is not a failure; BullMQ delays the job). */
async function attempt(handler: Handler, data: unknown, signal?: AbortSignal): Promise<unknown> {
  for (;;) {
    try {
      // A JSON round trip keeps in-process payloads honest: what would not survive Redis does not survive here.
      return await handler(JSON.parse(JSON.stringify(data)), signal);
    } catch (err) {
      if (!(err instanceof JobDeferred)) throw err;
      await sleep(err.delayMs, undefined, { ref: false });
    }
  }
}

function withDeadline<T>(p: Promise<T>, queue: string, ms: number, onTimeout = () => {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(
        new KernelError(KernelErrorCode.DeadlineExceeded, `${queue} job timed out after ${ms / 1000}s`, {
          operation: queue,
          timeout: ms / 1000,
        }),
      );
    }, ms);
  });
  const decoded = p.catch((err: unknown) => Promise.reject(decodeJobFailure(err)));
  return Promise.race([decoded, deadline]).finally(() => clearTimeout(timer));
}

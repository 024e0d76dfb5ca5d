import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { InvalidationChannel } from './invalidation-channel';

/**
 * How a producer withdraws a request-scoped job a worker has already started (docs/limits-and-security.md,
 * "A client that goes away"): nobody will read its answer (the request's client went away, or its model
 * circuit let the call go), so the worker running it should stop, above all before a provider answers and
 * bills a model call for nobody. A job not started yet is simply removed from its queue; one that is running
 * is named on this deployment-wide Redis channel, and the process whose worker holds it aborts it through
 * BullMQ's own cancellation (`Worker.cancelJob`: the processor's signal). A withdrawal lost in a Redis blip
 * leaves the job its deadline, as before there was a channel.
 */
export class JobWithdrawals {
  private readonly channel: InvalidationChannel;
  private readonly workers = new Map<string, Worker>();
  private listening = false;

  constructor(redis: Redis, queuePrefix: string) {
    this.channel = new InvalidationChannel(
      redis,
      `${queuePrefix}:job-withdrawals`,
      (message) => this.heard(message),
      () => undefined, // a missed withdrawal: the job runs to its deadline
    );
  }

  /** From now on a withdrawal of one of `worker`'s jobs aborts it; the first call subscribes this process. */
  watch(worker: Worker): void {
    this.workers.set(worker.name, worker);
    if (this.listening) return;
    this.listening = true;
    this.channel.start();
  }

  /** Tells the deployment that job `id` of `queue` is withdrawn; never throws (the job keeps its deadline). */
  withdraw(queue: string, id: string): Promise<void> {
    return this.channel.publish(JSON.stringify({ queue, id }));
  }

  onModuleDestroy(): void {
    this.channel.stop();
  }

  private heard(message: string): void {
    let parsed: { queue?: unknown; id?: unknown };
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed.queue !== 'string' || typeof parsed.id !== 'string') return;
    // false when another process's worker holds the job (every process hears every withdrawal).
    this.workers.get(parsed.queue)?.cancelJob(parsed.id, 'withdrawn by its caller');
  }
}

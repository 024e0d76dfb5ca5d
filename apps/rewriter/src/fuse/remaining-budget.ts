/**
 * How long the worker's own model call may outlast the gateway's fuse. The gateway decides `timeout`
 * (docs/contract.md#digest-rewrite: a slow model is a timeout, not a failure), so the worker must not give up first and
 * answer
 * `failed` a moment before the gateway's wait ends; it stops shortly after, bounding wasted work.
 */
export const FUSE_GRACE_MS = 1000;

/**
 * Milliseconds left of a job's fuse. The gateway stops waiting `timeoutMs` after it enqueued the job,
 * so time spent waiting in the queue is subtracted; a clock running behind the producer's never
 * grants more than `timeoutMs`.
 */
export function remainingBudget(timeoutMs: number, enqueuedAt: number | undefined, now = Date.now()): number {
  if (enqueuedAt === undefined || !Number.isFinite(enqueuedAt)) return timeoutMs;
  return Math.min(timeoutMs, timeoutMs - Math.max(0, now - enqueuedAt));
}

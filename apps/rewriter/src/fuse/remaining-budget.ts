/**
 * Milliseconds left of a job's fuse. The gateway stops waiting `timeoutMs` after it enqueued the job,
 * so time spent waiting in the queue is subtracted; a clock running behind the producer's never
 * grants more than `timeoutMs`.
 */
export function remainingBudget(timeoutMs: number, enqueuedAt: number | undefined, now = Date.now()): number {
  if (enqueuedAt === undefined || !Number.isFinite(enqueuedAt)) return timeoutMs;
  return Math.min(timeoutMs, timeoutMs - Math.max(0, now - enqueuedAt));
}

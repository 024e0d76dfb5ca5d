import { JobsOptions } from 'bullmq';
import { QueueName } from '@app/contracts';

/**
 * Job options per queue, decided here only. Completed jobs are kept briefly (not removed at once):
 * removing them immediately races `waitUntilFinished` and loses results (dependencies.md pitfall 1).
 */
export function jobOptions(queue: QueueName): JobsOptions {
  const keep = { removeOnComplete: { age: 120, count: 5000 }, removeOnFail: { age: 24 * 3600, count: 5000 } };
  switch (queue) {
    case QueueName.Index:
      return { ...keep, attempts: 5, backoff: { type: 'exponential', delay: 500 } };
    // Request-path jobs are awaited under a deadline; a retry after the deadline helps nobody.
    case QueueName.Find:
    case QueueName.Assemble:
    case QueueName.Expand:
    case QueueName.Digest:
      return { ...keep, attempts: 1 };
  }
}

/** Deterministic id for an index job: one pending job per node and write, so re-enqueueing is a no-op. */
export function indexJobId(accountId: string, uri: string, version: string): string {
  return `idx-${Buffer.from(`${accountId}\u0000${uri}`).toString('base64url')}-${version}`;
}

import { performance } from 'node:perf_hooks';
import { StageTimer } from '@app/kernel';
import type { JobRun } from './queue-processor';

/**
 * A stage timer for one request job, its first stage the queue wait: from the producer's add to the
 * start of this run (docs/architecture.md, "Stage timings"). Producer and worker share the host clock
 * in every supported deployment; an in-process job has no add time and so no queue wait.
 */
export function jobStageTimer(job: Pick<JobRun, 'enqueuedAt'>): StageTimer {
  const timer = new StageTimer(() => performance.now());
  if (job.enqueuedAt !== undefined) timer.add('queue_wait', Date.now() - job.enqueuedAt);
  return timer;
}

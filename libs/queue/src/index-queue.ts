import { IndexJob, QueueName } from '@app/contracts';
import { JobBus } from './job-bus.port';
import { indexJobId } from './job-options';

/** Enqueues the index job of an outbox entry under its deterministic id; returns that id. */
export async function enqueueIndex(bus: JobBus, job: IndexJob): Promise<string> {
  const jobId = indexJobId(job);
  await bus.enqueue(QueueName.Index, job, { jobId });
  return jobId;
}

import { Processor } from '@nestjs/bullmq';
import { FindJob, FindResult, QueueName } from '@app/contracts';
import { EmbedError } from '@app/embed';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { jobStageTimer, JobRun, QueueProcessor, REQUEST_WORKER_OPTIONS } from '@app/queue';
import { isFindJob } from './find-job.guard';
import { FindService } from './find.service';

/** Consumes `find` jobs (request-scoped): the base validates, drops late jobs and codes failures. */
@Processor(QueueName.Find, REQUEST_WORKER_OPTIONS)
export class FindProcessor extends QueueProcessor<QueueName.Find> {
  constructor(private readonly service: FindService) {
    super(QueueName.Find);
  }

  protected isPayload(data: unknown): data is FindJob {
    return isFindJob(data);
  }

  /** The result carries this job's stage times for the gateway to record (docs/architecture.md, "Stage timings"). */
  protected async run(data: FindJob, job: JobRun): Promise<FindResult> {
    const timer = jobStageTimer(job);
    const result = await this.service.find(data, timer);
    return { ...result, stages: timer.timings() };
  }

  // An embedder outage is the service being unavailable (503), not a bug.
  protected override codeOf(err: unknown): KernelError | null {
    if (!(err instanceof EmbedError)) return null;
    return new KernelError(KernelErrorCode.Unavailable, `embedding the query failed: ${err.message}`);
  }
}

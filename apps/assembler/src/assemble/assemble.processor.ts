import { Processor } from '@nestjs/bullmq';
import { AssembleJob, AssembleResult, QueueName } from '@app/contracts';
import { jobStageTimer, JobRun, QueueProcessor, REQUEST_WORKER_OPTIONS } from '@app/queue';
import { AssembleService } from './assemble.service';

/** Consumes `assemble` jobs (request-scoped); the base validates, drops late jobs and codes failures. */
@Processor(QueueName.Assemble, REQUEST_WORKER_OPTIONS)
export class AssembleProcessor extends QueueProcessor<QueueName.Assemble> {
  constructor(private readonly service: AssembleService) {
    super(QueueName.Assemble);
  }

  protected isPayload(d: unknown): d is AssembleJob {
    const j = d as AssembleJob;
    return (
      !!j &&
      !!j.identity &&
      typeof j.identity.accountId === 'string' &&
      Array.isArray(j.candidates) &&
      Number.isFinite(j.maxTokens) &&
      j.maxTokens >= 1 &&
      (j.seen === undefined || Array.isArray(j.seen))
    );
  }

  /** The result carries this job's stage times for the gateway to record (docs/architecture.md, "Stage timings"). */
  protected async run(data: AssembleJob, job: JobRun): Promise<AssembleResult> {
    const timer = jobStageTimer(job);
    const result = await timer.time('run', () => this.service.assemble(data, timer));
    return { ...result, stages: timer.timings() };
  }
}

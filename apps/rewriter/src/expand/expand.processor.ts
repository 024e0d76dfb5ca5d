import { Processor } from '@nestjs/bullmq';
import { ExpandJob, ExpandResult, QueueName } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { LlmError } from '@app/llm';
import { JobRun, QueueProcessor, REQUEST_WORKER_OPTIONS } from '@app/queue';
import { isExpandJob } from './expand-job.guard';
import { ExpandService } from './expand.service';

/** Consumes `expand` jobs (request-scoped): planner failures are reported with their code, never retried. */
@Processor(QueueName.Expand, REQUEST_WORKER_OPTIONS)
export class ExpandProcessor extends QueueProcessor<QueueName.Expand> {
  constructor(private readonly service: ExpandService) {
    super(QueueName.Expand);
  }

  protected isPayload(data: unknown): data is ExpandJob {
    return isExpandJob(data);
  }

  protected run(data: ExpandJob, job: JobRun): Promise<ExpandResult> {
    return this.service.expand(data, job.enqueuedAt, job.signal);
  }

  protected override codeOf(err: unknown): KernelError | null {
    if (!(err instanceof LlmError)) return null;
    const code = err.kind === 'timeout' ? KernelErrorCode.DeadlineExceeded : KernelErrorCode.Unavailable;
    return new KernelError(code, `query planner failed (${err.kind}): ${err.message}`);
  }
}

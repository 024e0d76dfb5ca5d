import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { ExpandJob, ExpandResult, jobFailureMessage, QueueName } from '@app/contracts';
import { KernelErrorCode } from '@app/kernel';
import { LlmError } from '@app/llm';
import { ConsumerHost } from '@app/queue';
import { isExpandJob } from './expand-job.guard';
import { ExpandService } from './expand.service';

/** Consumes `expand` jobs: validate, call the service, report planner failures without retry. */
@Processor(QueueName.Expand)
export class ExpandProcessor extends ConsumerHost {
  private readonly logger = new Logger(ExpandProcessor.name);

  constructor(private readonly service: ExpandService) {
    super();
  }

  process(job: Job<ExpandJob>) {
    this.logger.debug(`expand ${job.id}`);
    return this.handle(job.data, job.timestamp);
  }

  async handle(data: unknown, enqueuedAt?: number): Promise<ExpandResult> {
    if (!isExpandJob(data)) throw new UnrecoverableError(`malformed expand job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    try {
      return await this.service.expand(data, enqueuedAt);
    } catch (err) {
      // Awaited under the expansion fuse: a retry would land after the gateway stopped waiting.
      if (err instanceof LlmError) {
        this.logger.warn(`expand failed: ${err.kind}: ${err.message}`);
        const code = err.kind === 'timeout' ? KernelErrorCode.DeadlineExceeded : KernelErrorCode.Unavailable;
        throw new UnrecoverableError(jobFailureMessage(code, `query planner failed (${err.kind}): ${err.message}`));
      }
      throw err;
    }
  }
}

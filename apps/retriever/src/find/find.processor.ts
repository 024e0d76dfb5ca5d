import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Job, UnrecoverableError } from 'bullmq';
import { FindJob, jobFailureMessage, QueueName } from '@app/contracts';
import { EmbedError } from '@app/embed';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { ConsumerHost } from '@app/queue';
import { isFindJob } from './find-job.guard';
import { FindService } from './find.service';

/** Consumes `find` jobs: validate the payload, call the service, report failures with their code. */
@Processor(QueueName.Find)
export class FindProcessor extends ConsumerHost {
  private readonly logger = new Logger(FindProcessor.name);

  constructor(private readonly service: FindService) {
    super();
  }

  process(job: Job<FindJob>) {
    this.logger.debug(`find ${job.id}`);
    return this.handle(job.data);
  }

  async handle(data: unknown) {
    if (!isFindJob(data)) throw new UnrecoverableError(`malformed find job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    try {
      return await this.service.find(data);
    } catch (err) {
      // Find jobs are awaited under the request deadline, so nothing here is worth a retry; the code
      // prefix lets the gateway answer 400/503 instead of 500.
      if (err instanceof KernelError) throw new UnrecoverableError(jobFailureMessage(err.code, err.message));
      if (err instanceof EmbedError) throw new UnrecoverableError(jobFailureMessage(KernelErrorCode.Unavailable, `embedding the query failed: ${err.message}`));
      // Anything else (a database error, a bug) is logged here; its text never reaches the caller.
      const errorId = randomUUID();
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      this.logger.error(`find failed, errorId=${errorId}: ${detail}`);
      throw new UnrecoverableError(jobFailureMessage(KernelErrorCode.Internal, `search failed (error id ${errorId})`));
    }
  }
}

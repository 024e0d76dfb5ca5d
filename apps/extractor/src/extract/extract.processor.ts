import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { ExtractJob, QueueName } from '@app/contracts';
import { ConsumerHost, extractBackoff } from '@app/queue';
import { ExtractService } from './extract.service';

/**
 * Consumes `extract` jobs; the last attempt marks the task failed, earlier ones are retried by BullMQ,
 * after the wait a provider's transient failure asked for (`extractBackoff`).
 */
@Processor(QueueName.Extract, { settings: { backoffStrategy: extractBackoff } })
export class ExtractProcessor extends ConsumerHost {
  private readonly logger = new Logger(ExtractProcessor.name);

  constructor(private readonly service: ExtractService) {
    super();
  }

  process(job: Job<ExtractJob>) {
    this.logger.debug(`extract ${job.id} (attempt ${job.attemptsMade + 1})`);
    return this.handle(job.data, job.attemptsMade + 1 >= (job.opts.attempts ?? 1), job.id, job.attemptsMade);
  }

  handle(raw: unknown, finalAttempt = true, jobId?: string, attemptsMade = 0) {
    return this.counted(QueueName.Extract, raw, !finalAttempt, () =>
      // In the commit's request id and trace: extraction's log lines, model calls and memory writes follow it.
      this.inJobContext(QueueName.Extract, raw, jobId, async (data) => {
        if (!isExtractJob(data))
          throw new UnrecoverableError(`malformed extract job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
        return this.service.run(data, finalAttempt, attemptsMade);
      }),
    );
  }
}

function isExtractJob(d: unknown): d is ExtractJob {
  const j = d as ExtractJob;
  return (
    !!j &&
    typeof j.accountId === 'string' &&
    typeof j.userId === 'string' &&
    typeof j.sessionId === 'string' &&
    Number.isSafeInteger(j.archiveIndex) &&
    typeof j.taskId === 'string' &&
    Array.isArray(j.eventTags) &&
    j.eventTags.every((t) => typeof t === 'string')
  );
}

import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { ExtractJob, QueueName } from '@app/contracts';
import { ConsumerHost, DURABLE_WORKER_OPTIONS, extractBackoff, JobDeferred } from '@app/queue';
import { tenantBusyDeferral } from '@app/store';
import { ExtractService } from './extract.service';

/**
 * Consumes `extract` jobs; the last attempt marks the task failed, earlier ones are retried by BullMQ,
 * after the wait a provider's transient failure asked for (`extractBackoff`). A job of an account whose
 * rows are being removed is put back, not failed (TenantBusy: docs/limits-and-security.md, "Tenant data on
 * deletion and in MCP").
 */
@Processor(QueueName.Extract, { ...DURABLE_WORKER_OPTIONS, settings: { backoffStrategy: extractBackoff } })
export class ExtractProcessor extends ConsumerHost {
  private readonly logger = new Logger(ExtractProcessor.name);

  constructor(private readonly service: ExtractService) {
    super();
  }

  process(job: Job<ExtractJob>, token?: string) {
    this.logger.debug(`extract ${job.id} (attempt ${job.attemptsMade + 1})`);
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    return this.putBackOnDeferral(job, token, () => this.attempt(job.data, final, job.id, job.attemptsMade));
  }

  /** The in-process bus's entry: one attempt, the last (that bus retries nothing). */
  handle(raw: unknown) {
    return this.attempt(raw);
  }

  private attempt(raw: unknown, finalAttempt = true, jobId?: string, attemptsMade = 0) {
    return this.counted(QueueName.Extract, raw, !finalAttempt, () =>
      // In the commit's request id and trace: extraction's log lines, model calls and memory writes follow it.
      this.inJobContext(QueueName.Extract, raw, jobId, async (data) => {
        if (!isExtractJob(data))
          throw new UnrecoverableError(`malformed extract job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
        return this.service.run(data, finalAttempt, attemptsMade).catch((err: unknown) => {
          const delayMs = tenantBusyDeferral(err);
          if (delayMs === null) throw err;
          throw new JobDeferred(delayMs, (err as Error).message);
        });
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

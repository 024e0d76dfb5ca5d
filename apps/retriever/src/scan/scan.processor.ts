import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Job, UnrecoverableError } from 'bullmq';
import { jobFailureMessage, QueueName, ScanJob } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { ConsumerHost } from '@app/queue';
import { ScanService } from './scan.service';

/** Consumes `scan` jobs (grep/glob): validate the payload, call the service, report failures with their code. */
@Processor(QueueName.Scan)
export class ScanProcessor extends ConsumerHost {
  private readonly logger = new Logger(ScanProcessor.name);

  constructor(private readonly service: ScanService) {
    super();
  }

  process(job: Job<ScanJob>) {
    this.logger.debug(`scan ${job.id}`);
    return this.handle(job.data);
  }

  async handle(data: unknown) {
    if (!isScanJob(data)) {
      throw new UnrecoverableError(`malformed scan job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    }
    try {
      return await this.service.run(data);
    } catch (err) {
      // Awaited under the request deadline: no retries; the code prefix lets the gateway answer 400/504.
      if (err instanceof KernelError) throw new UnrecoverableError(jobFailureMessage(err.code, err.message));
      const errorId = randomUUID();
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      this.logger.error(`scan failed, errorId=${errorId}: ${detail}`);
      throw new UnrecoverableError(jobFailureMessage(KernelErrorCode.Internal, `scan failed (error id ${errorId})`));
    }
  }
}

function isScanJob(d: unknown): d is ScanJob {
  const j = d as ScanJob;
  const id = j?.identity;
  const common = !!j && typeof j === 'object' && !!id
    && typeof id.accountId === 'string' && typeof id.userId === 'string'
    && typeof j.uri === 'string' && j.uri.startsWith('viking://') && typeof j.regex === 'string';
  if (!common) return false;
  if (j.kind === 'glob') return Number.isInteger(j.limit);
  return j.kind === 'grep'
    && Number.isInteger(j.levelLimit) && Number.isInteger(j.maxFiles) && Number.isInteger(j.maxLines);
}

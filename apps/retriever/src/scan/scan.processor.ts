import { Processor } from '@nestjs/bullmq';
import { QueueName, ScanJob, ScanResult } from '@app/contracts';
import { JobRun, QueueProcessor, REQUEST_WORKER_OPTIONS } from '@app/queue';
import { ScanService } from './scan.service';

/** Consumes `scan` jobs (grep/glob, request-scoped): the base validates, drops late jobs and codes failures. */
@Processor(QueueName.Scan, REQUEST_WORKER_OPTIONS)
export class ScanProcessor extends QueueProcessor<QueueName.Scan> {
  constructor(private readonly service: ScanService) {
    super(QueueName.Scan);
  }

  protected isPayload(data: unknown): data is ScanJob {
    return isScanJob(data);
  }

  // A withdrawn scan (its caller stopped waiting) has its statement cancelled (docs/limits-and-security.md).
  protected run(data: ScanJob, job: JobRun): Promise<ScanResult> {
    return this.service.run(data, job.signal);
  }
}

function isScanJob(d: unknown): d is ScanJob {
  const j = d as ScanJob;
  const id = j?.identity;
  const common =
    !!j &&
    typeof j === 'object' &&
    !!id &&
    typeof id.accountId === 'string' &&
    typeof id.userId === 'string' &&
    typeof j.uri === 'string' &&
    j.uri.startsWith('viking://') &&
    typeof j.regex === 'string';
  if (!common) return false;
  if (j.kind === 'glob') return Number.isInteger(j.limit);
  return (
    j.kind === 'grep' &&
    [j.levelLimit, j.maxFiles, j.maxLines, j.maxBytes, j.maxLineChars].every((n) => Number.isInteger(n))
  );
}

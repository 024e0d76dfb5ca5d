import { Processor } from '@nestjs/bullmq';
import { DigestJob, DigestResult, QueueName } from '@app/contracts';
import { JobRun, QueueProcessor, REQUEST_WORKER_OPTIONS } from '@app/queue';
import { isDigestJob } from './digest-job.guard';
import { DigestService } from './digest.service';

/** Consumes `digest` jobs (request-scoped); the service reports model failures as status `failed`. */
@Processor(QueueName.Digest, REQUEST_WORKER_OPTIONS)
export class DigestProcessor extends QueueProcessor<QueueName.Digest> {
  constructor(private readonly service: DigestService) {
    super(QueueName.Digest);
  }

  protected isPayload(data: unknown): data is DigestJob {
    return isDigestJob(data);
  }

  protected run(data: DigestJob, job: JobRun): Promise<DigestResult> {
    return this.service.digest(data, job.enqueuedAt, job.signal);
  }
}

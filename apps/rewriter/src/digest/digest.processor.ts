import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { DigestJob, DigestResult, QueueName } from '@app/contracts';
import { ConsumerHost } from '@app/queue';
import { isDigestJob } from './digest-job.guard';
import { DigestService } from './digest.service';

/** Consumes `digest` jobs: validate the payload, call the service; bad payloads fail without retry. */
@Processor(QueueName.Digest)
export class DigestProcessor extends ConsumerHost {
  private readonly logger = new Logger(DigestProcessor.name);

  constructor(private readonly service: DigestService) {
    super();
  }

  process(job: Job<DigestJob>) {
    this.logger.debug(`digest ${job.id}`);
    return this.handle(job.data, job.timestamp);
  }

  async handle(data: unknown, enqueuedAt?: number): Promise<DigestResult> {
    if (!isDigestJob(data)) throw new UnrecoverableError(`malformed digest job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    return this.service.digest(data, enqueuedAt);
  }
}

import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { IndexJob, QueueName } from '@app/contracts';
import { ConsumerHost } from '@app/queue';
import { IndexService } from './index.service';

/** Consumes `index` jobs: validate the payload, call the service; bad payloads fail without retry. */
@Processor(QueueName.Index)
export class IndexProcessor extends ConsumerHost {
  private readonly logger = new Logger(IndexProcessor.name);

  constructor(private readonly service: IndexService) {
    super();
  }

  process(job: Job<IndexJob>) {
    this.logger.debug(`index ${job.id} (${job.data?.uris?.length} nodes)`);
    return this.handle(job.data);
  }

  handle(data: unknown) {
    if (!isIndexJob(data)) throw new UnrecoverableError(`malformed index job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    return this.service.index(data);
  }
}

function isIndexJob(d: unknown): d is IndexJob {
  const j = d as IndexJob;
  return !!j && typeof j.accountId === 'string' && Number.isSafeInteger(j.outboxId) && (j.op === 'upsert' || j.op === 'delete')
    && Array.isArray(j.uris) && j.uris.every((u) => typeof u === 'string' && u.startsWith('viking://'));
}

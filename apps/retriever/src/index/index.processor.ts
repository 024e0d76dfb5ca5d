import { Processor } from '@nestjs/bullmq';
import { IndexJob, IndexResult, QueueName } from '@app/contracts';
import { QueueProcessor } from '@app/queue';
import { IndexService } from './index.service';

/** Consumes `index` jobs (durable): failures are retried; a malformed payload fails for good. */
@Processor(QueueName.Index)
export class IndexProcessor extends QueueProcessor<QueueName.Index> {
  constructor(private readonly service: IndexService) {
    super(QueueName.Index);
  }

  protected isPayload(d: unknown): d is IndexJob {
    const j = d as IndexJob;
    return (
      !!j &&
      typeof j.accountId === 'string' &&
      Number.isSafeInteger(j.outboxId) &&
      (j.op === 'upsert' || j.op === 'delete') &&
      Array.isArray(j.uris) &&
      j.uris.every((u) => typeof u === 'string' && u.startsWith('viking://'))
    );
  }

  protected run(data: IndexJob): Promise<IndexResult> {
    return this.service.index(data);
  }
}

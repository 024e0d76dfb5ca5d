import { Processor } from '@nestjs/bullmq';
import { ManualExtractJob, ManualExtractResult, QueueName } from '@app/contracts';
import { DURABLE_WORKER_OPTIONS, JobRun, QueueProcessor } from '@app/queue';
import { ExtractService } from './extract.service';

/** Consumes `session-extract` jobs (awaited by `POST /sessions/{id}/extract`; never retried). */
@Processor(QueueName.SessionExtract, DURABLE_WORKER_OPTIONS)
export class ManualExtractProcessor extends QueueProcessor<QueueName.SessionExtract> {
  constructor(private readonly service: ExtractService) {
    super(QueueName.SessionExtract);
  }

  protected isPayload(data: unknown): data is ManualExtractJob {
    const j = data as ManualExtractJob;
    return !!j && typeof j.accountId === 'string' && typeof j.userId === 'string' && typeof j.sessionId === 'string';
  }

  protected run(data: ManualExtractJob, _job: JobRun): Promise<ManualExtractResult> {
    return this.service.manual(data);
  }
}

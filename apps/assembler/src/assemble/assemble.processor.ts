import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { AssembleJob, QueueName } from '@app/contracts';
import { ConsumerHost } from '@app/queue';
import { AssembleService } from './assemble.service';

/** Consumes `assemble` jobs; a malformed payload fails at once (it would never succeed). */
@Processor(QueueName.Assemble)
export class AssembleProcessor extends ConsumerHost {
  private readonly logger = new Logger(AssembleProcessor.name);

  constructor(private readonly service: AssembleService) {
    super();
  }

  process(job: Job<AssembleJob>) {
    this.logger.debug(`assemble ${job.id} (${job.data?.candidates?.length ?? 0} candidates)`);
    return this.handle(job.data);
  }

  handle(data: unknown) {
    if (!isAssembleJob(data)) throw new UnrecoverableError(`malformed assemble job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    return this.service.assemble(data);
  }
}

function isAssembleJob(d: unknown): d is AssembleJob {
  const j = d as AssembleJob;
  return !!j && !!j.identity && typeof j.identity.accountId === 'string' && Array.isArray(j.candidates)
    && Number.isFinite(j.maxTokens) && j.maxTokens >= 1;
}

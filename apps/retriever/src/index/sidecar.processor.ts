import { Processor } from '@nestjs/bullmq';
import { Job, UnrecoverableError } from 'bullmq';
import { QueueName, SidecarJob, SidecarResult } from '@app/contracts';
import { ConsumerHost } from '@app/queue';
import { SidecarService } from './sidecar.service';

/** Consumes `sidecar` jobs: a coalesced, deferred refresh of one directory's summary. */
@Processor(QueueName.Sidecar)
export class SidecarProcessor extends ConsumerHost {
  constructor(private readonly service: SidecarService) {
    super();
  }

  process(job: Job<SidecarJob>) {
    return this.handle(job.data);
  }

  async handle(data: unknown): Promise<SidecarResult> {
    const j = data as SidecarJob;
    if (!j || typeof j.accountId !== 'string' || typeof j.uri !== 'string' || !j.uri.startsWith('viking://')) {
      throw new UnrecoverableError(`malformed sidecar job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
    }
    const status = await this.service.refresh(j.accountId, j.uri, true);
    return { refreshed: status === 'complete' ? 1 : 0 };
  }
}

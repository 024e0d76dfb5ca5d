import { Processor } from '@nestjs/bullmq';
import { QueueName, SidecarJob, SidecarResult } from '@app/contracts';
import { QueueProcessor } from '@app/queue';
import { SidecarService } from './sidecar.service';

/** Consumes `sidecar` jobs: a coalesced, deferred refresh of one directory's summary. */
@Processor(QueueName.Sidecar)
export class SidecarProcessor extends QueueProcessor<QueueName.Sidecar> {
  constructor(private readonly service: SidecarService) {
    super(QueueName.Sidecar);
  }

  protected isPayload(d: unknown): d is SidecarJob {
    const j = d as SidecarJob;
    return !!j && typeof j.accountId === 'string' && typeof j.uri === 'string' && j.uri.startsWith('viking://');
  }

  protected async run(j: SidecarJob): Promise<SidecarResult> {
    const status = (await this.service.refresh(j.accountId, [j.uri], new Set([j.uri]))).get(j.uri);
    return { refreshed: status === 'complete' ? 1 : 0 };
  }
}

import { Processor } from '@nestjs/bullmq';
import { QueueName, SidecarJob, SidecarResult } from '@app/contracts';
import { DURABLE_WORKER_OPTIONS, QueueProcessor } from '@app/queue';
import { tenantBusyDeferral } from '@app/store';
import { IndexRunGate } from './index-run-gate';
import { SidecarService } from './sidecar.service';

/**
 * Consumes `sidecar` jobs: a coalesced, deferred refresh of one directory's summary (put back while its
 * account's rows are being removed).
 */
@Processor(QueueName.Sidecar, DURABLE_WORKER_OPTIONS)
export class SidecarProcessor extends QueueProcessor<QueueName.Sidecar> {
  constructor(
    private readonly service: SidecarService,
    private readonly gate: IndexRunGate,
  ) {
    super(QueueName.Sidecar);
  }

  protected isPayload(d: unknown): d is SidecarJob {
    const j = d as SidecarJob;
    return !!j && typeof j.accountId === 'string' && typeof j.uri === 'string' && j.uri.startsWith('viking://');
  }

  protected override deferralOf(err: unknown): number | null {
    return tenantBusyDeferral(err);
  }

  protected async run(j: SidecarJob): Promise<SidecarResult> {
    // Beside index runs, never beside one run alone: a death during that run is then its own
    // (docs/architecture.md, "A job that kills its worker").
    const status = await this.gate.shared(() => this.service.refreshJob(j.accountId, j.uri));
    return { refreshed: status === 'complete' ? 1 : 0 };
  }
}

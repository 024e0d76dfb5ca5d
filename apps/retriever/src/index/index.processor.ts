import { Processor } from '@nestjs/bullmq';
import { IndexJob, IndexResult, QueueName } from '@app/contracts';
import { DURABLE_WORKER_OPTIONS, jobStageTimer, JobRun, QueueProcessor } from '@app/queue';
import { tenantBusyDeferral } from '@app/store';
import { IndexRunGuard } from './index-run-guard.service';
import { IndexService } from './index.service';

/**
 * Consumes `index` jobs (durable): failures are retried; a malformed payload fails for good, as does a run that
 * split or set aside an entry whose runs kept dying with their worker; a job whose account's rows are being
 * removed is put back, its attempts untouched.
 */
@Processor(QueueName.Index, DURABLE_WORKER_OPTIONS)
export class IndexProcessor extends QueueProcessor<QueueName.Index> {
  constructor(
    private readonly service: IndexService,
    private readonly guard: IndexRunGuard,
  ) {
    super(QueueName.Index);
  }

  protected isPayload(d: unknown): d is IndexJob {
    const j = d as IndexJob;
    return (
      !!j &&
      typeof j.accountId === 'string' &&
      Number.isSafeInteger(j.outboxId) &&
      (j.stamp === undefined || (typeof j.stamp === 'string' && /^\d{1,20}$/.test(j.stamp))) &&
      (j.op === 'upsert' || j.op === 'delete') &&
      Array.isArray(j.uris) &&
      j.uris.every((u) => typeof u === 'string' && u.startsWith('viking://'))
    );
  }

  protected override deferralOf(err: unknown): number | null {
    return tenantBusyDeferral(err);
  }

  protected async run(data: IndexJob, job: JobRun): Promise<IndexResult> {
    // The retries reach a waiting write's `queue_status.requeue_count` (docs/fs-and-mcp.md "system/wait");
    // the stage times its write-stage histogram (docs/architecture.md, "Stage timings").
    const timer = jobStageTimer(job);
    // The guard counts the run in the outbox entry first: an entry whose runs keep dying with their worker is
    // split or set aside instead (docs/architecture.md, "A job that kills its worker").
    const result = await timer.time('run', () => this.guard.around(data, () => this.service.index(data, timer)));
    return { ...result, retries: job.attemptsMade ?? 0, stages: timer.timings() };
  }
}

import { Processor } from '@nestjs/bullmq';
import {
  FindBatchJob,
  FindBatchResult,
  FindCallOutcome,
  FindJob,
  FindResult,
  isFindBatch,
  jobFailureMessage,
  MAX_FIND_BATCH,
  QueueName,
} from '@app/contracts';
import { EmbedError } from '@app/embed';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { isClientGone, jobStageTimer, JobRun, QueueProcessor, REQUEST_WORKER_OPTIONS } from '@app/queue';
import { isFindJob } from './find-job.guard';
import { FindRun, FindService } from './find.service';

/** Consumes `find` jobs (request-scoped): the base validates, drops late jobs and codes failures. */
@Processor(QueueName.Find, REQUEST_WORKER_OPTIONS)
export class FindProcessor extends QueueProcessor<QueueName.Find> {
  constructor(private readonly service: FindService) {
    super(QueueName.Find);
  }

  /** One call, or a batch whose calls are checked one by one (a malformed call fails alone). */
  protected isPayload(data: unknown): data is FindJob | FindBatchJob {
    if (isFindJob(data)) return true;
    const calls = (data as FindBatchJob | null)?.calls;
    return Array.isArray(calls) && calls.length >= 1 && calls.length <= MAX_FIND_BATCH;
  }

  /** The result carries this job's stage times for the gateway to record (docs/architecture.md, "Stage timings"). */
  protected async run(data: FindJob | FindBatchJob, job: JobRun): Promise<FindResult | FindBatchResult> {
    const timer = jobStageTimer(job);
    const run = { timer, deadlineAt: job.meta.deadlineAt, signal: job.signal };
    if (!isFindBatch(data)) {
      const result = await timer.time('run', () => this.service.find(data, run));
      return { ...result, stages: timer.timings() };
    }
    const outcomes = await timer.time('run', () => this.batch(data, run));
    return { outcomes, stages: timer.timings() };
  }

  private async batch(data: FindBatchJob, run: FindRun): Promise<FindCallOutcome[]> {
    // The calls run together; a query shared by several calls (own space, peer scan) is embedded once.
    const vectors = new Map();
    return Promise.all(
      data.calls.map(async (call): Promise<FindCallOutcome> => {
        if (!isFindJob(call))
          return { error: jobFailureMessage(KernelErrorCode.Internal, 'malformed find job payload') };
        try {
          return { result: await this.service.find(call, { ...run, vectors }) };
        } catch (err) {
          // Withdrawn: the whole job stops (the base reports it once), not each call.
          if (isClientGone(err)) throw err;
          return { error: this.failureMessage(err) };
        }
      }),
    );
  }

  // An embedder outage is the service being unavailable (503), not a bug.
  protected override codeOf(err: unknown): KernelError | null {
    if (!(err instanceof EmbedError)) return null;
    return new KernelError(KernelErrorCode.Unavailable, `embedding the query failed: ${err.message}`);
  }
}

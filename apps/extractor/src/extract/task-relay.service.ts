import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ExtractJob, QueueName } from '@app/contracts';
import { JobBus, PeriodicRelay } from '@app/queue';
import { SessionTaskRepository } from '@app/store';

const BATCH = 100;

/** BullMQ's reason for a job whose workers died under it more often than the stall limit allows. */
const STALLED_PAST_LIMIT = 'job stalled more than allowable limit';

/** The task's error for an extract job that failed outside the extractor. */
export function extractFailureText(reason: string): string {
  if (reason === STALLED_PAST_LIMIT)
    return 'The extractor stopped (killed or crashed) while extracting this commit, twice; it is not run a third time.';
  return `The extraction job failed: ${reason}`;
}

/**
 * The commit tasks' outbox relay: a task that stays open past the grace period gets its extract job
 * enqueued again under the same job id (a no-op while the job still exists). This covers a queue that
 * lost the job (Redis restarted empty), and a task whose job BullMQ failed outside the extractor is
 * failed with it. See docs/sessions.md "Faults". It also deletes expired task records.
 */
@Injectable()
export class TaskRelayService extends PeriodicRelay {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tasks: SessionTaskRepository,
    private readonly bus: JobBus,
  ) {
    super('task relay', config.indexing.outboxPollMs);
  }

  protected async relay(): Promise<void> {
    // Longer than the index grace: an extraction legitimately runs for seconds (a model call).
    const grace = this.config.indexing.outboxGraceMs * 3;
    const failed: Array<{ job: ExtractJob; reason: string }> = [];
    await this.tasks.relayStale(BATCH, grace, async (jobs) => {
      for (const job of jobs) {
        // A job BullMQ failed for good outside the processor (its workers died under it past the stall
        // limit) would make the re-add a no-op for as long as it is kept: its task is failed instead.
        const reason = await this.bus.failure(QueueName.Extract, job.taskId);
        if (reason === null) await this.bus.enqueue(QueueName.Extract, job, { jobId: job.taskId });
        else failed.push({ job, reason });
      }
    });
    // After the claim's transaction: failing a task locks its row again.
    for (const { job, reason } of failed) {
      this.logger.warn(`task ${job.taskId}: its extract job failed outside the extractor (${reason}); task failed`);
      await this.tasks.fail(job, extractFailureText(reason));
    }
    // Task records past their retention (MUNINN_TASK_TTL_S, MUNINN_TASK_FAILED_TTL_S) are deleted; reads already hide them.
    await this.tasks.deleteExpired(BATCH);
  }
}

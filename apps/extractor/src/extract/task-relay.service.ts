import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { JobBus, PeriodicRelay } from '@app/queue';
import { SessionTaskRepository } from '@app/store';

const BATCH = 100;

/**
 * The commit tasks' outbox relay: a task that stays open past the grace period gets its extract job
 * enqueued again under the same job id (a no-op while the job still exists). This covers a queue that
 * lost the job (Redis restarted empty). See docs/sessions.md "Faults". It also deletes expired task records.
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
    await this.tasks.relayStale(BATCH, grace, async (jobs) => {
      for (const job of jobs) await this.bus.enqueue(QueueName.Extract, job, { jobId: job.taskId });
    });
    // Task records past their retention (MUNINN_TASK_TTL_S, MUNINN_TASK_FAILED_TTL_S) are deleted; reads already hide them.
    await this.tasks.deleteExpired(BATCH);
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { JobBus } from '@app/queue';
import { SessionTaskRepository } from '@app/store';

const BATCH = 100;

/**
 * The commit tasks' outbox relay: a task that stays open past the grace period gets its extract job
 * enqueued again under the same job id (a no-op while the job still exists). This covers a queue that
 * lost the job (Redis restarted empty). See docs/sessions.md "Faults".
 */
@Injectable()
export class TaskRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TaskRelayService.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tasks: SessionTaskRepository,
    private readonly bus: JobBus,
  ) {}

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.tick(), this.config.indexing.outboxPollMs);
    this.timer.unref();
  }

  async onApplicationShutdown() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  tick(): Promise<void> {
    if (this.running || !this.timer) return this.running ?? Promise.resolve();
    this.running = this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    try {
      // Longer than the index grace: an extraction legitimately runs for seconds (a model call).
      const grace = this.config.indexing.outboxGraceMs * 3;
      await this.tasks.relayStale(BATCH, grace, async (jobs) => {
        for (const job of jobs) await this.bus.enqueue(QueueName.Extract, job, { jobId: job.taskId });
      });
      if (this.failing) this.logger.log('task relay resumed');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn(`task relay paused: ${(err as Error).message}`);
      this.failing = true;
    }
  }
}

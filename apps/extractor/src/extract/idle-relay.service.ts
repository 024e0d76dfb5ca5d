import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { JobBus, PeriodicRelay, scheduleSessionIdle } from '@app/queue';
import { SessionIdleCheckRepository } from '@app/store';

const BATCH = 100;

/**
 * The idle checks' relay (docs/sessions.md, "Idle commits"): a session whose check is overdue by three times the
 * outbox grace had its `session-idle` job lost (never enqueued while the queue was away, or gone with Redis, or
 * failed at its stall limit), or its threshold commit lost with the gateway that was to make it, so its last
 * messages would wait for a next message that may never come. Its check is asked for now (one still waiting, even
 * for a day, is moved to now) and its due time moved on by as much, so a check lost again is asked for again.
 * Several extractors share the work: each claims rows the others do not hold.
 */
@Injectable()
export class IdleRelayService extends PeriodicRelay {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checks: SessionIdleCheckRepository,
    private readonly bus: JobBus,
  ) {
    super('idle relay', config.indexing.outboxGraceMs);
  }

  protected async relay(): Promise<void> {
    const late = this.config.indexing.outboxGraceMs * 3;
    while (this.active) {
      const jobs = await this.checks.claimOverdue(BATCH, late, late);
      for (const job of jobs) await scheduleSessionIdle(this.bus, job, 0);
      if (jobs.length < BATCH) return;
    }
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { IndexClient, SidecarClient, sidecarKey } from '@app/queue';
import { NodeIndexRepository, OutboxRepository } from '@app/store';

const BATCH = 200;

/**
 * Drains the store's write outbox into the index queue: entries whose writer did not enqueue them
 * (Redis was away, the process died after the commit) and entries whose job was lost or failed are
 * enqueued again under the same deterministic job id, and overdue directory refreshes are
 * rescheduled. Safe in any number of processes (rows are claimed with SKIP LOCKED).
 * See docs/architecture.md#write-path.
 */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelayService.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    private readonly nodes: NodeIndexRepository,
    private readonly indexer: IndexClient,
    private readonly sidecars: SidecarClient,
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

  /** One pass (also called by tests): relays due entries and overdue directory refreshes. */
  tick(): Promise<void> {
    if (this.running || !this.timer) return this.running ?? Promise.resolve();
    this.running = this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    const grace = this.config.indexing.outboxGraceMs;
    try {
      let relayed = 0;
      for (let n = BATCH; n === BATCH && this.timer; relayed += n) {
        n = await this.outbox.relayDue(BATCH, grace, async (jobs) => {
          for (const job of jobs) await this.indexer.enqueue(job);
        });
      }
      for (const d of await this.nodes.overdueSidecars(BATCH, grace)) {
        await this.sidecars.enqueue(d, { coalesceKey: sidecarKey(d.accountId, d.uri) });
      }
      if (this.failing) this.logger.log('outbox relay resumed');
      else if (relayed > 0) this.logger.log(`outbox relay enqueued ${relayed} pending index jobs`);
      this.failing = false;
    } catch (err) {
      // Logged once per outage, not once per tick.
      if (!this.failing) this.logger.warn(`outbox relay paused: ${(err as Error).message}`);
      this.failing = true;
    }
  }
}

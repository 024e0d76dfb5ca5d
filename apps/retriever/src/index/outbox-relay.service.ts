import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { IndexClient, PeriodicRelay, SidecarClient, sidecarKey } from '@app/queue';
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
export class OutboxRelayService extends PeriodicRelay {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    private readonly nodes: NodeIndexRepository,
    private readonly indexer: IndexClient,
    private readonly sidecars: SidecarClient,
  ) {
    super('outbox relay', config.indexing.outboxPollMs);
  }

  /** Relays due entries, then overdue directory refreshes. */
  protected async relay(): Promise<void> {
    const grace = this.config.indexing.outboxGraceMs;
    let relayed = 0;
    for (let n = BATCH; n === BATCH && this.active; relayed += n) {
      n = await this.outbox.relayDue(BATCH, grace, async (jobs) => {
        for (const job of jobs) await this.indexer.enqueue(job);
      });
    }
    for (const d of await this.nodes.overdueSidecars(BATCH, grace)) {
      await this.sidecars.enqueue(d, { coalesceKey: sidecarKey(d.accountId, d.uri) });
    }
    if (relayed > 0) this.logger.log(`outbox relay enqueued ${relayed} pending index jobs`);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { OutboxRepository } from '@app/store';

/** How long one count of an account's backlog answers its writes on this gateway. */
export const BACKLOG_TTL_MS = 1000;
/** Accounts whose count this gateway remembers at most; expired ones go first. */
const MAX_ACCOUNTS = 10_000;

interface Reading {
  at: number;
  pending: Promise<number>;
}

/**
 * Bounds the work one account's writes leave waiting for the index (docs/limits-and-security.md,
 * "Index backlog"). Rate limits bound how fast a tenant writes, not how far it gets ahead of indexing:
 * a tenant writing faster than its files are embedded grew its outbox and its queued jobs (Redis
 * memory every tenant shares) without end, and its own writes waited ever longer to become searchable.
 * A write is refused (429) while `MUNINN_ACCOUNT_MAX_PENDING_INDEX` of the account's files await
 * indexing. The count is read from the store at most once per second per account and gateway, so a
 * write costs no statement; the bound can be passed by one second of writes, and one write larger than
 * the room left passes whole (a batch or upload is never refused for its own size here).
 */
@Injectable()
export class IndexBacklogService {
  private readonly max: number;
  private readonly readings = new Map<string, Reading>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly outbox: OutboxRepository,
  ) {
    this.max = config.indexing.accountMaxPending;
  }

  /** 429 RESOURCE_EXHAUSTED (`details.limit` `index_backlog`) while the account's backlog is at its bound. */
  async assertRoom(caller: Identity): Promise<void> {
    if (this.max === 0) return;
    const pending = await this.read(caller.accountId);
    if (pending < this.max) return;
    throw new KernelError(
      KernelErrorCode.ResourceExhausted,
      `Index backlog full: ${pending} files of this account are written but not yet indexed, the limit is ${this.max} ` +
        '(MUNINN_ACCOUNT_MAX_PENDING_INDEX); retry once they are indexed',
      { limit: 'index_backlog', max: this.max, pending, retry_after_s: Math.ceil(BACKLOG_TTL_MS / 1000) },
    );
  }

  private read(accountId: string): Promise<number> {
    const now = Date.now();
    const known = this.readings.get(accountId);
    if (known && now - known.at < BACKLOG_TTL_MS) return known.pending;
    this.readings.delete(accountId);
    const pending = this.outbox.pendingFiles(accountId, this.max);
    // A failed count is not remembered: the next write asks the store again.
    pending.catch(() => {
      if (this.readings.get(accountId)?.pending === pending) this.readings.delete(accountId);
    });
    this.readings.set(accountId, { at: now, pending });
    this.evict(now);
    return pending;
  }

  /** Readings are kept in the order they were taken, so the expired ones are at the front. */
  private evict(now: number): void {
    for (const [account, r] of this.readings) {
      if (this.readings.size <= MAX_ACCOUNTS && now - r.at < BACKLOG_TTL_MS) return;
      this.readings.delete(account);
    }
  }
}

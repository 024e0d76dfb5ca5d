import { Injectable } from '@nestjs/common';
import { PeriodicRelay } from '@app/queue';
import { IdempotencyRepository } from '@app/store';

/** A minute between sweeps: an account exceeds its key bound by at most a minute of writes. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes expired idempotency keys, and trims each account that took keys since the last pass to its
 * newest `MUNINN_IDEMPOTENCY_MAX_KEYS` (docs/limits-and-security.md, "Retrying a write: Idempotency-Key").
 * Only accounts seen taking a key are trimmed, so a pass reads no more than they hold.
 */
@Injectable()
export class IdempotencySweepService extends PeriodicRelay {
  private readonly seen = new Set<string>();

  constructor(private readonly keys: IdempotencyRepository) {
    super('idempotency sweep', SWEEP_INTERVAL_MS);
  }

  /** The account took a key: trim it at the next pass. */
  noteAccount(accountId: string): void {
    this.seen.add(accountId);
  }

  protected async relay(): Promise<void> {
    await this.keys.sweepExpired();
    const accounts = [...this.seen];
    this.seen.clear();
    for (const [i, id] of accounts.entries()) {
      if (!this.active) return;
      try {
        await this.keys.trimAccount(id);
      } catch (err) {
        // Keep the rest for the next pass; the relay reports the failure.
        for (const rest of accounts.slice(i)) this.seen.add(rest);
        throw err;
      }
    }
  }
}

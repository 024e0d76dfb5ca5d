/** Accounts whose reading one cache remembers at most; expired ones go first. */
const MAX_ACCOUNTS = 10_000;

interface Reading<T> {
  at: number;
  value: Promise<T>;
}

/**
 * One figure per account, read at most once per `ttlMs` and shared by the requests that ask meanwhile.
 * A failed reading is not remembered: the next request reads again.
 */
export class AccountReadings<T = number> {
  private readonly readings = new Map<string, Reading<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly read: (accountId: string) => Promise<T>,
  ) {}

  get(accountId: string): Promise<T> {
    const now = Date.now();
    const known = this.readings.get(accountId);
    if (known && now - known.at < this.ttlMs) return known.value;
    this.readings.delete(accountId);
    const value = this.read(accountId);
    value.catch(() => {
      if (this.readings.get(accountId)?.value === value) this.readings.delete(accountId);
    });
    this.readings.set(accountId, { at: now, value });
    this.evict(now);
    return value;
  }

  /** Forgets the account's reading (it changed): the next request reads again. */
  forget(accountId: string): void {
    this.readings.delete(accountId);
  }

  /** Forgets every reading (a missed change may be anywhere). */
  clear(): void {
    this.readings.clear();
  }

  /** Readings are kept in the order they were taken, so the expired ones are at the front. */
  private evict(now: number): void {
    for (const [account, r] of this.readings) {
      if (this.readings.size <= MAX_ACCOUNTS && now - r.at < this.ttlMs) return;
      this.readings.delete(account);
    }
  }
}

import { LedgerStore } from './ledger-store.port';

/** In-process {@link LedgerStore} with TTLs; `now` is injectable so specs control expiry. */
export class InMemoryLedgerStore implements LedgerStore {
  private readonly records = new Map<string, { json: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async read(key: string): Promise<string | null> {
    const record = this.records.get(key);
    if (!record) return null;
    if (record.expiresAt <= this.now()) {
      this.records.delete(key);
      return null;
    }
    return record.json;
  }

  async write(key: string, json: string, ttlSeconds: number): Promise<void> {
    this.records.set(key, { json, expiresAt: this.now() + ttlSeconds * 1000 });
  }

  async remove(target: { key: string } | { keyPrefix: string }): Promise<void> {
    if ('key' in target) this.records.delete(target.key);
    else for (const key of [...this.records.keys()]) if (key.startsWith(target.keyPrefix)) this.records.delete(key);
  }
}

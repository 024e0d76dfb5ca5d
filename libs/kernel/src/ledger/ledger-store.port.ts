/** Storage of serialized dedup ledgers; Redis in production, in-memory in specs and local runs. */
export interface LedgerStore {
  /** The stored JSON, or null when there is none (or it expired). Rejects on I/O failure. */
  read(key: string): Promise<string | null>;
  /** Store JSON under `key` for `ttlSeconds`. Rejects on I/O failure. */
  write(key: string, json: string, ttlSeconds: number): Promise<void>;
  /** Removes the ledger (its session was deleted). Rejects on I/O failure. */
  remove(key: string): Promise<void>;
}

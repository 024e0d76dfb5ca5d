/** Storage of serialized dedup ledgers; Redis in production, in-memory in specs and local runs. */
export interface LedgerStore {
  /** The stored JSON, or null when there is none (or it expired). Rejects on I/O failure. */
  read(key: string): Promise<string | null>;
  /** Store JSON under `key` for `ttlSeconds`. Rejects on I/O failure. */
  write(key: string, json: string, ttlSeconds: number): Promise<void>;
  /** Delete the ledger at `key` (exact), or every ledger whose key starts with `keyPrefix`. Rejects on I/O failure. */
  remove(target: { key: string } | { keyPrefix: string }): Promise<void>;
}

import { Redis } from 'ioredis';
import { LedgerStore } from '@app/kernel';

/** The dedup ledger in Redis: one JSON string per (account, user, session), expiring after a TTL. */
export class RedisLedgerStore implements LedgerStore {
  constructor(private readonly redis: Redis) {}

  read(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async write(key: string, json: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(key, json, 'EX', ttlSeconds);
  }

  async remove(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

/** Ledger key; ids are base64url-encoded so no id can collide with another through `:`. */
export function ledgerKey(prefix: string, accountId: string, userId: string, sessionId: string): string {
  const enc = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
  return `${prefix}:ledger:${enc(accountId)}:${enc(userId)}:${enc(sessionId)}`;
}

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

  /** A prefix is matched with SCAN in pages, so deleting an account's ledgers never blocks Redis. */
  async remove(target: { key: string } | { keyPrefix: string }): Promise<void> {
    if ('key' in target) {
      await this.redis.del(target.key);
      return;
    }
    // Ledger key parts are base64url, so the prefix holds no glob metacharacters.
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${target.keyPrefix}*`, 'COUNT', 500);
      if (keys.length) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}

const enc = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** Ledger key; ids are base64url-encoded so no id can collide with another through `:`. */
export function ledgerKey(prefix: string, accountId: string, userId: string, sessionId: string): string {
  return `${prefix}:ledger:${enc(accountId)}:${enc(userId)}:${enc(sessionId)}`;
}

/** The key prefix of every ledger of an account, or of one user of it (ends with `:`, so ids never overlap). */
export function ledgerScopePrefix(prefix: string, accountId: string, userId?: string): string {
  return `${prefix}:ledger:${enc(accountId)}:${userId === undefined ? '' : `${enc(userId)}:`}`;
}

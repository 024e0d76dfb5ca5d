import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '@app/config';
import { REDIS } from '@app/queue';
import type { UserRecord } from '@app/store';

/** Most keys remembered per process; beyond it the least recently used is forgotten. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  user: UserRecord;
  expiresAt: number;
}

/** What a replica forgets: one user's keys, or (`userId` null) a whole account's. */
interface Invalidation {
  accountId: string;
  userId: string | null;
}

/**
 * API key → owner, remembered for `MUNINN_AUTH_CACHE_TTL_MS` so a request costs no store read to
 * authenticate (docs/limits-and-security.md, "Keys and roles"). Rotating a key, deleting a user or an
 * account and changing a role forget the affected keys at once on this replica and, through a Redis
 * channel, on every other; a replica that missed the message (Redis away) forgets them when their
 * entries expire. Unknown keys are never remembered, so a new key works at once.
 */
@Injectable()
export class KeyCacheService implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger(KeyCacheService.name);
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly channel: string;
  // Bumped by every invalidation: a lookup that started before one must not remember what it read.
  private generation = 0;
  private subscriber: Redis | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {
    this.ttlMs = config.auth.keyCacheTtlMs;
    this.channel = `${config.queues.prefix}:identity-invalidate`;
  }

  onModuleInit(): void {
    if (!this.redis || this.ttlMs <= 0) return;
    // A connection of its own (a subscribed client can do nothing else), which waits and resubscribes
    // across outages; boot does not wait for it.
    const sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    sub.on('message', (_channel: string, raw: string) => this.drop(parseInvalidation(raw)));
    sub.on('error', () => undefined); // outages are logged once by the shared client's watcher
    sub.subscribe(this.channel).catch((err: Error) => this.log.warn(`key cache not subscribed: ${err.message}`));
    this.subscriber = sub;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** The owner of the key hashed `keyHash`: remembered and fresh, else `load()`'s answer (remembered when found). */
  async resolve(keyHash: string, load: () => Promise<UserRecord | null>): Promise<UserRecord | null> {
    if (this.ttlMs <= 0) return load();
    const now = Date.now();
    const hit = this.entries.get(keyHash);
    this.entries.delete(keyHash);
    if (hit && hit.expiresAt > now) {
      this.entries.set(keyHash, hit); // most recently used last
      return hit.user;
    }
    const generation = this.generation;
    const user = await load();
    if (user && generation === this.generation) {
      this.entries.set(keyHash, { user, expiresAt: now + this.ttlMs });
      if (this.entries.size > KEY_CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    return user;
  }

  /** Forgets a user's keys (or, `userId` null, an account's) here and on every other replica. */
  async invalidate(accountId: string, userId: string | null): Promise<void> {
    this.drop({ accountId, userId });
    if (!this.redis || this.ttlMs <= 0) return;
    await this.redis.publish(this.channel, JSON.stringify({ accountId, userId })).catch((err: Error) => {
      this.log.warn(`key cache invalidation not published (other replicas forget within the TTL): ${err.message}`);
    });
  }

  private drop(inv: Invalidation | null): void {
    this.generation++;
    // A message this replica cannot read forgets everything: never serve a key that may be revoked.
    if (!inv) return this.entries.clear();
    for (const [hash, e] of this.entries) {
      if (e.user.account_id === inv.accountId && (inv.userId === null || e.user.user_id === inv.userId))
        this.entries.delete(hash);
    }
  }
}

function parseInvalidation(raw: string): Invalidation | null {
  try {
    const v = JSON.parse(raw) as Partial<Invalidation>;
    if (typeof v.accountId !== 'string') return null;
    return { accountId: v.accountId, userId: typeof v.userId === 'string' ? v.userId : null };
  } catch {
    return null;
  }
}

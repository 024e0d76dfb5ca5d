import { Inject, Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, AppConfig } from '@app/config';
import { AccountSuspension, Role } from '@app/kernel';
import { InvalidationChannel, REDIS } from '@app/queue';
import { hashKey } from '@app/store';

/** What a user key resolves to; the actor peer comes from each request's header, never from here. */
export interface KeyOwner {
  accountId: string;
  userId: string;
  role: Role;
  /** Set while the owner's account is suspended: the key is refused (remembered like any answer). */
  suspended: AccountSuspension | null;
}

/** An account, or one user of it, whose keys or role changed. */
export interface KeyScope {
  accountId: string;
  userId?: string;
}

/**
 * Resolved user keys, held for `MUNINN_KEY_CACHE_TTL_MS` so a request does not ask the store who is
 * calling (docs/limits-and-security.md#keys-and-roles). Entries are indexed by the key's hash, never
 * the key. Admin changes (rotate, delete, role) drop the entries of that user or account here at once
 * and on every other gateway through a Redis channel; a gateway that lost its subscription drops
 * everything when it reconnects, and the TTL bounds what a missed message can leave behind.
 */
@Injectable()
export class IdentityCacheService implements OnModuleInit, OnModuleDestroy {
  private readonly cache: LRUCache<string, KeyOwner> | null;
  private readonly channelName: string;
  private channel: InvalidationChannel | null = null;
  /** Bumped by every invalidation: a lookup that started before one must not remember what it read. */
  private generation = 0;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(REDIS) private readonly redis: Redis | null,
  ) {
    const ttl = config.auth.keyCacheTtlMs;
    this.cache = ttl > 0 ? new LRUCache({ max: config.auth.keyCacheMaxEntries, ttl, ttlAutopurge: false }) : null;
    this.channelName = `${config.queues.prefix}:identity-invalidate`;
  }

  onModuleInit(): void {
    if (!this.cache || !this.redis) return;
    this.channel = new InvalidationChannel(
      this.redis,
      this.channelName,
      (message) => this.dropLocal(parseScope(message)),
      () => this.dropAll(),
    );
    this.channel.start();
  }

  onModuleDestroy(): void {
    this.channel?.stop();
  }

  get(key: string): KeyOwner | undefined {
    return this.cache?.get(hashKey(key));
  }

  /** A mark to pass to {@link set}: taken before the store is asked. */
  mark(): number {
    return this.generation;
  }

  /**
   * Remembers a store answer, unless an invalidation arrived since `mark` (the answer may be stale); a
   * key that expires (kept by a rotation) is remembered no longer than it works.
   */
  set(key: string, owner: KeyOwner, mark: number, keyExpiresAt: string | null = null): void {
    if (mark !== this.generation || !this.cache) return;
    const left = keyExpiresAt === null ? Infinity : Date.parse(keyExpiresAt) - Date.now();
    if (left <= 0) return;
    this.cache.set(hashKey(key), owner, left < this.cache.ttl ? { ttl: left } : undefined);
  }

  /** Drops the scope here and tells the other gateways; a failed publish leaves them the TTL. */
  async invalidate(scope: KeyScope): Promise<void> {
    this.dropLocal(scope);
    await this.channel?.publish(JSON.stringify(scope));
  }

  private dropAll(): void {
    this.generation++;
    this.cache?.clear();
  }

  /** Drops one scope; a message this gateway cannot read drops everything (never serve a revoked key). */
  private dropLocal(scope: KeyScope | null): void {
    this.generation++;
    if (!this.cache) return;
    if (!scope) return this.cache.clear();
    const drop: string[] = [];
    for (const [hash, owner] of this.cache.entries()) {
      if (owner.accountId === scope.accountId && (!scope.userId || owner.userId === scope.userId)) drop.push(hash);
    }
    for (const hash of drop) this.cache.delete(hash);
  }
}

function parseScope(message: string): KeyScope | null {
  try {
    const v = JSON.parse(message) as Partial<KeyScope>;
    if (typeof v.accountId !== 'string') return null;
    return typeof v.userId === 'string' ? { accountId: v.accountId, userId: v.userId } : { accountId: v.accountId };
  } catch {
    return null;
  }
}

import { Inject, Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '@app/config';
import { InvalidationChannel, REDIS } from '@app/queue';
import { AccountLimitsService } from '@app/store';

/**
 * Tells every gateway that an account's own limits changed (docs/limits-and-security.md, "Per-account
 * limits"), so a lowered rate or concurrency limit holds on all of them at once rather than when each
 * one's 5-second reading runs out. A gateway that lost its subscription forgets every reading when it
 * reconnects; a failed publish leaves the others that 5 seconds.
 */
@Injectable()
export class LimitsChannelService implements OnModuleInit, OnModuleDestroy {
  private channel: InvalidationChannel | null = null;

  constructor(
    private readonly limits: AccountLimitsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  onModuleInit(): void {
    if (!this.redis) return;
    this.channel = new InvalidationChannel(
      this.redis,
      `${this.config.queues.prefix}:limits-invalidate`,
      (accountId) => this.limits.forget(accountId),
      () => this.limits.forgetAll(),
    );
    this.channel.start();
  }

  onModuleDestroy(): void {
    this.channel?.stop();
  }

  /** The account's limits changed on this gateway: the others forget their reading. */
  async announce(accountId: string): Promise<void> {
    await this.channel?.publish(accountId);
  }
}

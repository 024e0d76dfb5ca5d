import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

/** A day's count outlives its day by one, so a clock a little off at midnight still finds it. */
const KEEP_S = 2 * 86_400;
// One round trip: the day's count raised by this call's tokens, its expiry set with the first.
const ADD = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return n`;

/**
 * Model tokens each account's calls (extraction, query expansion, digest) spent today (UTC), against
 * `MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY` (docs/limits-and-security.md, "Model budget"): one Redis key per
 * account and day, shared by every process of the deployment; in one process without Redis (in-process
 * transport), a map. A failed look is no refusal: a Redis blip must not turn every tenant's model calls
 * off, and the budget is a spending bound, not a security boundary. One instance per process
 * (QueueModule provides it), so in one process the extractor and the gateway count in the same map.
 */
export class ModelBudget {
  private readonly logger = new Logger(ModelBudget.name);
  /** Without Redis: today's counts only (the map is emptied when the day changes). */
  private local = new Map<string, number>();
  private localDay = '';
  private readonly prefix: string;

  /**
   * @param limit tokens per account and UTC day (`MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY`); 0: no budget
   * @param queuePrefix the deployment's queue prefix, under which the counts are kept
   */
  constructor(
    readonly limit: number,
    queuePrefix: string,
    private readonly redis: Redis | null,
  ) {
    this.prefix = `${queuePrefix}:model-tokens`;
  }

  /** The account's model tokens counted today (0 with the budget off: nothing is counted then). */
  async usedToday(accountId: string): Promise<number> {
    if (this.limit === 0) return 0;
    const key = this.key(accountId);
    return this.redis ? Number((await this.redis.get(key)) ?? 0) : (this.local.get(key) ?? 0);
  }

  /** Whether the account has spent its day's model tokens (never, with the budget off). */
  async spent(accountId: string): Promise<boolean> {
    if (this.limit === 0) return false;
    try {
      return (await this.usedToday(accountId)) >= this.limit;
    } catch (err) {
      this.logger.warn(`model budget unreadable, not applied: ${(err as Error).message}`);
      return false;
    }
  }

  /** Counts a call's tokens against the account's day. */
  async add(accountId: string, tokens: number): Promise<void> {
    if (this.limit === 0 || !(tokens > 0)) return;
    const key = this.key(accountId);
    try {
      if (this.redis) await this.redis.eval(ADD, 1, key, Math.round(tokens), KEEP_S);
      else {
        const day = key.slice(key.lastIndexOf(':') + 1);
        if (day !== this.localDay) [this.local, this.localDay] = [new Map(), day];
        this.local.set(key, (this.local.get(key) ?? 0) + Math.round(tokens));
      }
    } catch (err) {
      this.logger.warn(`model budget not counted: ${(err as Error).message}`);
    }
  }

  private key(accountId: string): string {
    return `${this.prefix}:${Buffer.from(accountId).toString('base64url')}:${new Date().toISOString().slice(0, 10)}`;
  }
}

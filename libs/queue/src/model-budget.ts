import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { CircuitShare } from './circuit-share';
import { ModelCall, ModelCallOutcome, ModelMetrics } from './model-metrics';

/** A day's count outlives its day by one, so a clock a little off at midnight still finds it. */
const KEEP_S = 2 * 86_400;
// One round trip: the call's estimate added unless the day is already spent (-1), atomically, so calls
// made at the same time see each other's reservations.
const RESERVE = `local before = tonumber(redis.call('GET', KEYS[1]) or '0')
if before >= tonumber(ARGV[2]) then return -1 end
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return n`;
// A settle's difference; the expiry is set here too when the reservation could not write the key.
const ADD = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return n`;

/** A model call's share of its account's day: reserved before the call, settled with its cost after it. */
export interface ModelSpend {
  /** The tokens reserved: the estimate of what the call sends. */
  readonly reserved: number;
  /**
   * Counts the call at `tokens` (its usage, or the estimate of what it sent and got) in place of the
   * reservation; 0 gives the reservation back (no call reached the model). `outcome` is how the call
   * ended, for the metrics. Only the first settle counts.
   */
  settle(tokens: number, outcome?: Exclude<ModelCallOutcome, 'budget'>): Promise<void>;
  /**
   * Settles a call that failed: past its fuse the prompt was sent (and may well be charged), so the
   * reservation stays; refused or unreachable, no model read it, and the reservation is given back.
   */
  failed(timedOut: boolean): Promise<void>;
}

/**
 * Model tokens each account's calls (extraction, query expansion, digest) spent today (UTC), against
 * `MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY` (docs/limits-and-security.md, "Model budget"): one Redis key per
 * account and day, shared by every process of the deployment; in one process without Redis (in-process
 * transport), a map. A call reserves its estimate before it is made, so calls in flight at the same
 * time count against each other and the day can be passed by one call's answer at most, not by every
 * call in flight. A failed look is no refusal: a Redis blip must not turn every tenant's model calls
 * off, and the budget is a spending bound, not a security boundary. One instance per process
 * (QueueModule provides it), so in one process the extractor and the gateway count in the same map.
 */
export class ModelBudget {
  private readonly logger = new Logger(ModelBudget.name);
  /** Without Redis: today's counts only (the map is emptied when the day changes). */
  private local = new Map<string, number>();
  private localDay = '';
  private readonly prefix: string;
  /** The deployment's model calls in figures, for `/metrics`, and its circuits (shared through Redis). */
  readonly metrics: ModelMetrics;
  private readonly share: CircuitShare | null;

  /**
   * @param queuePrefix the deployment's queue prefix, under which the counts are kept
   * @param shareCircuits whether the circuits are shared with the deployment's other processes (`MUNINN_MODEL_BREAKER_SHARED`)
   */
  constructor(
    queuePrefix: string,
    private readonly redis: Redis | null,
    shareCircuits = true,
  ) {
    this.prefix = `${queuePrefix}:model-tokens`;
    this.share = redis && shareCircuits ? new CircuitShare(redis, queuePrefix) : null;
    this.metrics = new ModelMetrics(this.share);
  }

  onModuleDestroy(): void {
    this.share?.stop();
  }

  /**
   * The account's model tokens counted today, calls in flight at their estimate; 0 with its budget off
   * (`limit` 0: nothing is counted then).
   */
  async usedToday(accountId: string, limit: number): Promise<number> {
    if (limit === 0) return 0;
    const key = this.key(accountId);
    return this.redis ? Number((await this.redis.get(key)) ?? 0) : this.localCount(key);
  }

  /**
   * Reserves `estimate` tokens of the account's day for a call about to be made; null when the day is
   * already spent (the call must not be made). `limit` is the account's tokens per day (its own, or
   * `MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY`); 0: no budget. With the budget off, or its count unreadable,
   * the call goes ahead: the spend then counts nothing, or tries to count the call's cost when it settles.
   */
  async reserve(accountId: string, limit: number, estimate: number, call: ModelCall): Promise<ModelSpend | null> {
    if (limit === 0) return this.spend(call, null, 0);
    const key = this.key(accountId);
    const reserved = Math.max(0, Math.round(estimate) || 0);
    try {
      const spent = this.redis
        ? Number(await this.redis.eval(RESERVE, 1, key, reserved, limit, KEEP_S)) < 0
        : this.localCount(key) >= limit;
      if (spent) {
        this.metrics.ended(call, 'budget', 0);
        return null;
      }
      if (!this.redis) this.local.set(key, this.localCount(key) + reserved);
      return this.spend(call, key, reserved);
    } catch (err) {
      this.logger.warn(`model budget unreadable, not applied: ${(err as Error).message}`);
      return this.spend(call, key, 0);
    }
  }

  /** A call's spend; `key` null: the budget is off, the call is counted in the metrics only. */
  private spend(call: ModelCall, key: string | null, reserved: number): ModelSpend {
    let settled = false;
    const settle: ModelSpend['settle'] = async (tokens, outcome = 'ok') => {
      if (settled) return;
      settled = true;
      const counted = Math.max(0, Math.round(tokens) || 0);
      this.metrics.ended(call, outcome, counted);
      if (key !== null && counted !== reserved) await this.addTo(key, counted - reserved);
    };
    return {
      reserved,
      settle,
      failed: (timedOut) => settle(timedOut ? reserved : 0, timedOut ? 'timeout' : 'failed'),
    };
  }

  /** Adds `delta` (negative to give a reservation back) to the count under `key`, the reservation's day. */
  private async addTo(key: string, delta: number): Promise<void> {
    try {
      if (this.redis) await this.redis.eval(ADD, 1, key, delta, KEEP_S);
      // A key no longer in the map is a day gone by: its count no longer matters.
      else if (this.local.has(key)) this.local.set(key, (this.local.get(key) ?? 0) + delta);
    } catch (err) {
      this.logger.warn(`model budget not counted: ${(err as Error).message}`);
    }
  }

  private localCount(key: string): number {
    const day = key.slice(key.lastIndexOf(':') + 1);
    if (day !== this.localDay) [this.local, this.localDay] = [new Map(), day];
    return this.local.get(key) ?? 0;
  }

  private key(accountId: string): string {
    return `${this.prefix}:${Buffer.from(accountId).toString('base64url')}:${new Date().toISOString().slice(0, 10)}`;
  }
}

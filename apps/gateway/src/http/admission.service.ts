import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { currentAbandonSignal, REDIS } from '@app/queue';
import { AccountLimitsService } from '@app/store';
import { AccountLanes, LaneName } from './account-lanes';

/**
 * Rate limits and per-account fairness (docs/limits-and-security.md, "Rate limits and fairness").
 * Counters live in Redis so they hold across gateway replicas; while Redis is unreachable each
 * gateway counts in memory instead (the limiter's insurance), so an outage never blocks requests.
 * In-flight work is bounded per account at each gateway: one tenant's flood waits in its own line
 * (then 429) while other tenants' requests start at once.
 */
@Injectable()
export class AdmissionService {
  private readonly perKey: RateLimiterAbstract | null;
  /** One limiter per account requests-per-minute in use (the deployment's and the accounts' own). */
  private readonly perAccount = new Map<number, RateLimiterAbstract>();
  private readonly accountLimiter: ((perMinute: number) => RateLimiterAbstract) | null;
  private readonly rate: AppConfig['rate'];
  /** The accounts' lanes (request slots, scans, large searches, large bodies) and their metrics. */
  readonly lanes: AccountLanes;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(REDIS) redis: Redis | null,
    private readonly limits: AccountLimitsService,
  ) {
    this.rate = config.rate;
    this.lanes = new AccountLanes(limits, config.rate.accountMaxQueued);
    const on = config.rate.enabled && config.auth.mode === 'api_key';
    const prefix = `${config.queues.prefix}:rl`;
    this.perKey = on ? limiter(redis, `${prefix}:key`, config.rate.keyPerMinute) : null;
    // Limiters of one key prefix share their counters: an account given another limit keeps its count.
    this.accountLimiter = on ? (perMinute) => limiter(redis, `${prefix}:acct`, perMinute) : null;
  }

  /** Whether limits apply at all (api_key mode with MUNINN_RATE_LIMIT on; never for the root key). */
  applies(caller: Identity): boolean {
    return this.perKey !== null && caller.role !== 'root';
  }

  /**
   * Counts `points` requests against the caller's key and account (the account's own requests per minute
   * where it has one, docs/limits-and-security.md "Per-account limits"); 429 with a retry delay when over.
   */
  async consume(caller: Identity, points = 1): Promise<void> {
    if (!this.applies(caller)) return;
    const key = JSON.stringify([caller.accountId, caller.userId]);
    await take(this.perKey!, key, points, 'key', this.rate.keyPerMinute);
    const { requests_per_minute: perMinute } = await this.limits.of(caller.accountId);
    await take(this.accountLimiterFor(perMinute), caller.accountId, points, 'account', perMinute);
  }

  private accountLimiterFor(perMinute: number): RateLimiterAbstract {
    let l = this.perAccount.get(perMinute);
    if (!l) this.perAccount.set(perMinute, (l = this.accountLimiter!(perMinute)));
    return l;
  }

  /**
   * Waits for one of the account's in-flight slots on this gateway; returns its release (idempotent).
   * 429 when the account's waiting line is full, or when the wait outlasts `maxWaitMs`; the client-gone error
   * once `gone` aborts (its client went away: it leaves the line, docs/limits-and-security.md "A client that goes
   * away").
   */
  enter(caller: Identity, maxWaitMs: number, gone?: AbortSignal): Promise<() => void> {
    return this.enterLane('max_inflight', caller, maxWaitMs, gone);
  }

  /**
   * Runs `work` (a grep or glob) in one of the account's scan slots, taken inside its request slot: a scan reads up
   * to MUNINN_SCAN_MAX_BYTES and the embedded store runs one statement at a time, so eight of one tenant's greps at
   * once held other tenants' store work for seconds (docs/limits-and-security.md, "Rate limits and fairness").
   */
  inScanLane<T>(caller: Identity, maxWaitMs: number, work: () => Promise<T>): Promise<T> {
    return this.inLane('max_scans', caller, maxWaitMs, work);
  }

  /**
   * One of the account's large-body slots for a request whose body is `bodyBytes` long (Infinity: sent without a
   * declared length), taken before the body is read and before its request slot (one order everywhere: no request
   * holds one while waiting for the other); a no-op release for a body of at most `MUNINN_LARGE_BODY_BYTES`. Eight
   * batch-writes near the 10 MiB bound at once from one account held another tenant's default context requests at
   * p90 2.9 s on PGlite: their parsing, their write transactions (the embedded store's one connection) and their
   * indexing (docs/limits-and-security.md, "Large bodies have a narrower lane").
   */
  enterLargeBody(caller: Identity, bodyBytes: number, maxWaitMs: number, gone?: AbortSignal): Promise<() => void> {
    if (bodyBytes <= this.rate.largeBodyBytes) return Promise.resolve(() => undefined);
    return this.enterLane('max_large_bodies', caller, maxWaitMs, gone);
  }

  /**
   * Runs `work` (a search asking for `candidates` over all its find calls) in one of the account's large-search
   * slots when it asks for more than `MUNINN_LARGE_SEARCH_CANDIDATES`, taken inside its request slot: one request
   * with `limit` 1,000 or six quota buckets of 1,000 holds the store, Redis and the assembler for ~0.3–0.9 s, and
   * eight of them at once held another tenant's default request at p50 2.5 s (docs/limits-and-security.md, "Large
   * searches have a narrower lane"). A smaller search runs as it is. The wait for a slot is bounded by `maxWaitMs`,
   * what is left of the request's deadline.
   */
  async inLargeSearchLane<T>(
    caller: Identity,
    candidates: number,
    maxWaitMs: number,
    work: () => Promise<T>,
  ): Promise<T> {
    if (candidates <= this.rate.largeSearchCandidates) return work();
    return this.inLane('max_large_searches', caller, maxWaitMs, work);
  }

  /**
   * Runs `work` in a slot of one of the account's lanes ({@link enterLane}), giving the slot back when it ends. The
   * wait stops with the request's work (its client gone: the abandon signal of its work context).
   */
  private async inLane<T>(name: LaneName, caller: Identity, maxWaitMs: number, work: () => Promise<T>): Promise<T> {
    const release = await this.enterLane(name, caller, maxWaitMs, currentAbandonSignal());
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** A slot of the account's lane `name` ({@link AccountLanes.enter}); none needed where limits do not apply. */
  private async enterLane(
    name: LaneName,
    caller: Identity,
    maxWaitMs: number,
    gone?: AbortSignal,
  ): Promise<() => void> {
    if (!this.applies(caller)) return () => undefined;
    return this.lanes.enter(name, caller.accountId, maxWaitMs, gone);
  }
}

function limiter(redis: Redis | null, keyPrefix: string, perMinute: number): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points: perMinute, duration: 60 });
  if (!redis) return memory;
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix,
    points: perMinute,
    duration: 60,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

async function take(
  l: RateLimiterAbstract,
  key: string,
  points: number,
  scope: 'key' | 'account',
  perMinute: number,
): Promise<void> {
  try {
    await l.consume(key, points);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw new KernelError(
      KernelErrorCode.ResourceExhausted,
      `Rate limit exceeded: ${perMinute} requests per minute per ${scope}; retry in ${retryAfter} s`,
      {
        limit: scope,
        per_minute: perMinute,
        retry_after_s: retryAfter,
      },
    );
  }
}

import { Inject, Injectable, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode, limitSource } from '@app/kernel';
import { clientGone, currentAbandonSignal, REDIS } from '@app/queue';
import { AccountLimitsService } from '@app/store';
import { LaneCounts, LaneMetrics, LaneWaitOutcome } from './lane-metrics';

/** The account's lanes: what a refusal calls the requests it holds, and the `details.limit` it names. */
const LANES = {
  max_inflight: { what: 'requests', limit: 'inflight' },
  max_scans: { what: 'greps and globs', limit: 'scans' },
  max_large_searches: { what: 'large searches', limit: 'large_searches' },
  max_large_bodies: { what: 'requests with large bodies', limit: 'large_bodies' },
} as const;
type LaneName = keyof typeof LANES;

/** One account's share of this gateway: requests running, and requests waiting for a slot, in order. */
interface AccountSlots {
  running: number;
  waiting: (() => void)[];
}

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
  private readonly slots = new Map<string, AccountSlots>();
  private readonly scanSlots = new Map<string, AccountSlots>();
  private readonly largeSearchSlots = new Map<string, AccountSlots>();
  private readonly largeBodySlots = new Map<string, AccountSlots>();
  private readonly rate: AppConfig['rate'];
  /** The lines' waits and counts, for `/metrics` (registered by the HTTP setup). */
  readonly metrics = new LaneMetrics(() => this.counts());

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(REDIS) redis: Redis | null,
    private readonly limits: AccountLimitsService,
  ) {
    this.rate = config.rate;
    const on = config.rate.enabled && config.auth.mode === 'api_key';
    const prefix = `${config.queues.prefix}:rl`;
    this.perKey = on ? limiter(redis, `${prefix}:key`, config.rate.keyPerMinute) : null;
    // Limiters of one key prefix share their counters: an account given another limit keeps its count.
    this.accountLimiter = on ? (perMinute) => limiter(redis, `${prefix}:acct`, perMinute) : null;
  }

  /** Each lane's requests running and waiting now, over every account of this gateway. */
  private counts(): Record<string, LaneCounts> {
    const lanes: [LaneName, Map<string, AccountSlots>][] = [
      ['max_inflight', this.slots],
      ['max_scans', this.scanSlots],
      ['max_large_searches', this.largeSearchSlots],
      ['max_large_bodies', this.largeBodySlots],
    ];
    const out: Record<string, LaneCounts> = {};
    for (const [name, accounts] of lanes) {
      const c = (out[LANES[name].limit] = { running: 0, waiting: 0 });
      for (const s of accounts.values()) {
        c.running += s.running;
        c.waiting += s.waiting.length;
      }
    }
    return out;
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
    return this.enterLane(this.slots, 'max_inflight', caller, maxWaitMs, gone);
  }

  /**
   * Runs `work` (a grep or glob) in one of the account's scan slots, taken inside its request slot: a scan reads up
   * to MUNINN_SCAN_MAX_BYTES and the embedded store runs one statement at a time, so eight of one tenant's greps at
   * once held other tenants' store work for seconds (docs/limits-and-security.md, "Rate limits and fairness").
   */
  inScanLane<T>(caller: Identity, maxWaitMs: number, work: () => Promise<T>): Promise<T> {
    return this.inLane(this.scanSlots, 'max_scans', caller, maxWaitMs, work);
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
    return this.enterLane(this.largeBodySlots, 'max_large_bodies', caller, maxWaitMs, gone);
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
    return this.inLane(this.largeSearchSlots, 'max_large_searches', caller, maxWaitMs, work);
  }

  /**
   * Runs `work` in a slot of one of the account's lanes ({@link enterLane}), giving the slot back when it ends. The
   * wait stops with the request's work (its client gone: the abandon signal of its work context).
   */
  private async inLane<T>(
    lanes: Map<string, AccountSlots>,
    name: LaneName,
    caller: Identity,
    maxWaitMs: number,
    work: () => Promise<T>,
  ): Promise<T> {
    const release = await this.enterLane(lanes, name, caller, maxWaitMs, currentAbandonSignal());
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * A slot of one of the account's lanes, `name` its size: the account's own value where it has one
   * (docs/limits-and-security.md, "Per-account limits"; read from the limits cache), else the deployment's. A
   * request whose client goes away (`gone` aborts) while it waits leaves the line at once: it held a place in a
   * bounded line, and then a slot, for nobody (a client that retried on its own timeout filled its account's line
   * with such waits, and the account's live requests were refused 429 behind them).
   */
  private async enterLane(
    lanes: Map<string, AccountSlots>,
    name: LaneName,
    caller: Identity,
    maxWaitMs: number,
    gone?: AbortSignal,
  ): Promise<() => void> {
    if (!this.applies(caller)) return () => undefined;
    if (gone?.aborted) throw clientGone();
    const account = caller.accountId;
    const { limits, own } = await this.limits.applied(account);
    const limit = limits[name];
    let s = lanes.get(account);
    if (!s) lanes.set(account, (s = { running: 0, waiting: [] }));
    const slots = s;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiting request of this account, unless the account's limit
      // was lowered below the requests running: then it is given up, until the lane is back within it.
      // The limit is read again (the limits cache: a map read; never refused, an unreadable row gives the
      // deployment's) since a PUT may have lowered it meanwhile.
      void this.limits.of(account).then((l) => handOff(l[name]));
    };
    const handOff = (current: number) => {
      const next = slots.running <= current ? slots.waiting.shift() : undefined;
      if (next) next();
      else if (--slots.running === 0) lanes.delete(account);
    };
    if (slots.running < limit) {
      slots.running++;
      return release;
    }
    const refusal = () => busy(account, slots.running, limit, name, limitSource(name, own));
    if (slots.waiting.length >= this.rate.accountMaxQueued) throw refusal();
    const lane = LANES[name].limit;
    const since = performance.now();
    await new Promise<void>((resolve, reject) => {
      const settle = (outcome: LaneWaitOutcome) => {
        clearTimeout(timer);
        gone?.removeEventListener('abort', left);
        this.metrics.waited(lane, outcome, (performance.now() - since) / 1000);
      };
      const wake = () => {
        settle('admitted');
        resolve();
      };
      const leave = (outcome: LaneWaitOutcome, err: KernelError) => {
        settle(outcome);
        const i = slots.waiting.indexOf(wake);
        if (i >= 0) slots.waiting.splice(i, 1);
        reject(err);
      };
      const left = () => leave('gone', clientGone());
      const timer = setTimeout(() => leave('refused', refusal()), maxWaitMs);
      gone?.addEventListener('abort', left, { once: true });
      slots.waiting.push(wake);
    });
    return release;
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

function busy(account: string, running: number, max: number, name: LaneName, source: string): KernelError {
  const { what, limit } = LANES[name];
  return new KernelError(
    KernelErrorCode.ResourceExhausted,
    `Too many ${what} in flight for account ${account} (${running} running, the limit is ${max} (${source}), line full); retry shortly`,
    {
      limit,
      max,
      retry_after_s: 1,
    },
  );
}

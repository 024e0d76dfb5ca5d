import { performance } from 'node:perf_hooks';
import { KernelError, KernelErrorCode, limitSource } from '@app/kernel';
import { clientGone } from '@app/queue';
import { AccountLimitsService } from '@app/store';
import { LaneCounts, LaneMetrics, LaneWaitOutcome } from './lane-metrics';

/** The account's lanes: what a refusal calls the requests it holds, and the `details.limit` it names. */
const LANES = {
  max_inflight: { what: 'requests', limit: 'inflight' },
  max_scans: { what: 'greps and globs', limit: 'scans' },
  max_large_searches: { what: 'large searches', limit: 'large_searches' },
  max_large_bodies: { what: 'requests with large bodies', limit: 'large_bodies' },
} as const;
/** A lane by the per-account limit that sizes it. */
export type LaneName = keyof typeof LANES;

/** One account's share of one lane of this gateway: requests running, and requests waiting for a slot, in order. */
interface AccountSlots {
  running: number;
  waiting: (() => void)[];
}

/**
 * Every account's lanes at this gateway (docs/limits-and-security.md, "Rate limits and fairness"): per lane and
 * account, up to the account's limit of requests run, further ones wait in arrival order (at most `maxQueued`, each
 * at most its deadline), then 429; a slot given back passes straight to the account's next waiting request.
 */
export class AccountLanes {
  private readonly lanes = new Map<LaneName, Map<string, AccountSlots>>(
    (Object.keys(LANES) as LaneName[]).map((name) => [name, new Map()]),
  );
  /** The lines' waits and counts, for `/metrics` (registered by the HTTP setup). */
  readonly metrics = new LaneMetrics(() => this.counts());

  constructor(
    private readonly limits: AccountLimitsService,
    private readonly maxQueued: number,
  ) {}

  /**
   * A slot of the account's lane `name`, sized by the account's own value where it has one
   * (docs/limits-and-security.md, "Per-account limits"; read from the limits cache), else the deployment's; its
   * release (idempotent). A request whose client goes away (`gone` aborts) while it waits leaves the line at once:
   * it held a place in a bounded line, and then a slot, for nobody (a client that retried on its own timeout filled
   * its account's line with such waits, and the account's live requests were refused 429 behind them).
   */
  async enter(name: LaneName, account: string, maxWaitMs: number, gone?: AbortSignal): Promise<() => void> {
    if (gone?.aborted) throw clientGone();
    const { limits, own } = await this.limits.applied(account);
    const limit = limits[name];
    const lanes = this.lanes.get(name)!;
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
    if (slots.waiting.length >= this.maxQueued) throw refusal();
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

  /** Each lane's requests running and waiting now, over every account of this gateway. */
  private counts(): Record<string, LaneCounts> {
    const out: Record<string, LaneCounts> = {};
    for (const [name, accounts] of this.lanes) {
      const c = (out[LANES[name].limit] = { running: 0, waiting: 0 });
      for (const s of accounts.values()) {
        c.running += s.running;
        c.waiting += s.waiting.length;
      }
    }
    return out;
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

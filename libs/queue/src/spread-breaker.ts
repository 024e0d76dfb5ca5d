import { CircuitState, IBreaker } from 'cockatiel';

const RECENT_CALLERS = 16;

/**
 * cockatiel's consecutive breaker with one more condition, for a deployment of many tenants
 * (docs/limits-and-security.md, "A model that stops answering"): of `threshold` failures in a row, one
 * account's count for at most half (rounded up), so the circuit opens when several accounts' calls fail,
 * or when every account that made a call of this kind in the last `windowMs` is among the failing ones.
 * One tenant whose own calls fail (digests of blocks near the largest budget on a slow model, a burst of
 * them sent at once) waits out its own fuses but cannot open the circuit, and take the call away, for
 * every tenant; an outage fails every account's calls and opens it as before; a deployment with one tenant
 * is unchanged.
 *
 * cockatiel tells a breaker that a call failed, not whose call it was: the circuit names the account of
 * each failure it is about to report ({@link failing}), in order, and each `failure` takes the oldest.
 */
export class SpreadBreaker implements IBreaker {
  private streak = 0;
  /** Failures of the current streak per account. */
  private readonly streakFailures = new Map<string, number>();
  private readonly pending: string[] = [];
  /**
   * The accounts that called lately and when, the newest last; at most {@link RECENT_CALLERS} kept (enough
   * to find one outside a streak, which no more than that many accounts' failures can make).
   */
  private readonly callers = new Map<string, number>();

  /**
   * @param held whether an account's calls are held now (its own circuit, AccountHolds): such an
   * account makes no call to fail, and counts among the failing ones
   */
  constructor(
    private readonly threshold: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly held: (account: string) => boolean = () => false,
  ) {}

  /** cockatiel's serialisation hook; not used. */
  get state(): unknown {
    return { streak: this.streak };
  }

  set state(_value: unknown) {
    // Nothing restored: a process starts with a closed circuit.
  }

  /** `account` makes a call. */
  called(account: string): void {
    this.callers.delete(account);
    this.callers.set(account, this.now());
    if (this.callers.size > RECENT_CALLERS) this.callers.delete(this.callers.keys().next().value as string);
  }

  /** The next failure reported is `account`'s. */
  failing(account: string): void {
    this.pending.push(account);
  }

  success(_state: CircuitState): void {
    this.streak = 0;
    this.streakFailures.clear();
  }

  failure(state: CircuitState): boolean {
    const account = this.pending.shift() ?? '';
    if (state === CircuitState.HalfOpen) return true;
    this.streak++;
    this.streakFailures.set(account, (this.streakFailures.get(account) ?? 0) + 1);
    if (this.streak < this.threshold) return false;
    const cap = Math.ceil(this.threshold / 2);
    let spread = 0;
    for (const n of this.streakFailures.values()) spread += Math.min(n, cap);
    if (spread >= this.threshold) return true;
    // Too few accounts' failures: they speak for the deployment only if every account that called of late failed
    // (or is held for its failures).
    const since = this.now() - this.windowMs;
    return ![...this.callers].some(([a, at]) => at >= since && !this.streakFailures.has(a) && !this.held(a));
  }
}

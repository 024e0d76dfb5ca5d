/** At most this many accounts' failure streaks are kept; past it the oldest streak is forgotten. */
const MAX_ACCOUNTS = 10_000;

interface Streak {
  failures: number;
  /** While now is before it, the account's calls are not made; 0: not held. */
  heldUntil: number;
  /** A held account's one call finding out, after its hold, whether its calls are answered again. */
  probing: boolean;
}

/**
 * One account's own circuit inside a call's circuit (docs/limits-and-security.md, "A model that stops
 * answering"): after `threshold` of its calls in a row failed, none of its calls is made for `cooldownMs`
 * (each of its requests degrades at once, as after the fuse); then one call finds out, the account's others
 * going without it meanwhile; its answer ends the hold, its failure holds the account again. The
 * deployment's circuit ({@link SpreadBreaker}) does not open for one tenant whose own calls fail; this keeps
 * that tenant from waiting out a fuse on every request, and from holding a rewriter and the provider for
 * every one of them. Per process, in memory; one streak per account that failed lately, bounded.
 */
export class AccountHolds {
  private readonly streaks = new Map<string, Streak>();

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get cooldownSeconds(): number {
    return this.cooldownMs / 1000;
  }

  /** Accounts whose calls are not made now (held, or finding out). */
  get held(): number {
    let n = 0;
    for (const s of this.streaks.values()) if (s.heldUntil > 0) n++;
    return n;
  }

  /** Whether `account` is held (its calls not made, or one finding out). */
  isHeld(account: string): boolean {
    return (this.streaks.get(account)?.heldUntil ?? 0) > 0;
  }

  /**
   * Whether `account`'s call may be made (`go`), not while it is held (false), nor while its one call
   * finding out runs. The first call after a hold is that call (`probe`: call {@link settled} when it ends,
   * however it ends).
   */
  admit(account: string): 'go' | 'probe' | false {
    const s = this.streaks.get(account);
    if (!s || s.heldUntil === 0) return 'go';
    if (s.probing || this.now() < s.heldUntil) return false;
    s.probing = true;
    return 'probe';
  }

  /** The provider answers the deployment again (its circuit closed): every hold ends. */
  clear(): void {
    this.streaks.clear();
  }

  /** `account`'s call was answered: its streak, and any hold, end. */
  answered(account: string): void {
    this.streaks.delete(account);
  }

  /** `account`'s call failed; true when this failure holds the account (a new hold, not a renewed one). */
  failed(account: string): boolean {
    const s = this.streaks.get(account) ?? { failures: 0, heldUntil: 0, probing: false };
    this.streaks.delete(account); // re-inserted last: the map's order is the streaks' age
    this.streaks.set(account, s);
    if (this.streaks.size > MAX_ACCOUNTS) this.streaks.delete(this.streaks.keys().next().value as string);
    s.failures++;
    if (s.failures < this.threshold) return false;
    const fresh = s.heldUntil === 0;
    s.heldUntil = this.now() + this.cooldownMs;
    return fresh;
  }

  /** The call {@link admit} let find out ended (answered, failed, cut or left by its client). */
  settled(account: string): void {
    const s = this.streaks.get(account);
    if (s) s.probing = false;
  }
}

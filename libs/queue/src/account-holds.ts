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
 * every one of them. In memory, one streak per account that failed lately, bounded; a process's holds are
 * told to the deployment's other processes through the circuit's share ({@link AccountHolds.heldElsewhere}).
 */
export class AccountHolds {
  private readonly streaks = new Map<string, Streak>();

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

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

  /** `account`'s call was answered: its streak, and any hold, end. True when the account was held. */
  answered(account: string): boolean {
    const held = this.isHeld(account);
    this.streaks.delete(account);
    return held;
  }

  /**
   * Another process holds `account` for `ms` (circuit-share.ts): held here too, until that process says
   * the account's call was answered, or for twice `ms` without word (that process may have died; its
   * cool-down and its call finding out fit), after which this process's next call finds out for itself.
   * True when the account was not held here before.
   */
  heldElsewhere(account: string, ms: number): boolean {
    const s = this.streak(account);
    const fresh = s.heldUntil === 0;
    s.failures = Math.max(s.failures, this.threshold);
    s.heldUntil = Math.max(s.heldUntil, this.now() + 2 * ms);
    return fresh;
  }

  /** `account`'s call failed; true when this failure holds the account (a new hold, not a renewed one). */
  failed(account: string): boolean {
    const s = this.streak(account);
    s.failures++;
    if (s.failures < this.threshold) return false;
    const fresh = s.heldUntil === 0;
    s.heldUntil = this.now() + this.cooldownMs;
    return fresh;
  }

  /** `account`'s streak, made the newest (the map's order is the streaks' age; the oldest goes past the bound). */
  private streak(account: string): Streak {
    const s = this.streaks.get(account) ?? { failures: 0, heldUntil: 0, probing: false };
    this.streaks.delete(account);
    this.streaks.set(account, s);
    if (this.streaks.size > MAX_ACCOUNTS) this.streaks.delete(this.streaks.keys().next().value as string);
    return s;
  }

  /** The call {@link admit} let find out ended (answered, failed, cut or left by its client). */
  settled(account: string): void {
    const s = this.streaks.get(account);
    if (s) s.probing = false;
  }
}

import { Logger } from '@nestjs/common';
import { BrokenCircuitError, circuitBreaker, CircuitBreakerPolicy, CircuitState, handleWhen } from 'cockatiel';
import { untilAborted } from '@app/kernel';
import { AccountHolds } from './account-holds';
import type { SharedCircuit } from './circuit-share';
import { isClientGone } from './job-context';
import { SpreadBreaker } from './spread-breaker';

/** A call's result that counts as a failure (a digest answers `failed` rather than throwing). */
class FailedResult<T> extends Error {
  constructor(readonly value: T) {
    super('the model call failed');
  }
}

/** Why a call in flight was let go: the circuit opened while it waited. Neither a success nor a failure. */
class CircuitCut extends Error {
  constructor() {
    super('the circuit opened while the call was in flight');
  }
}

/**
 * What {@link CallCircuit.run} did: the call's result, or none: `open`, no call was made (the circuit was
 * open); `held`, no call was made (the account's own calls failed of late: {@link AccountHolds}); `cut`, the
 * call was made but its answer not awaited (the circuit, or the account's hold, began while it was in
 * flight, so the provider may have been sent, and may bill, its prompt).
 */
export type BreakerRun<T> = { skipped: 'open' | 'held' | 'cut' } | { skipped: false; value: T };

/**
 * The circuit of one kind of request-path call to a provider, in one process (docs/limits-and-security.md,
 * "A model that stops answering"): a gateway's query expansion and digest, a retriever's query embedding.
 * On cockatiel's circuit breaker: after `failures` calls in a row failed or timed out (of several accounts,
 * unless no other account called: {@link SpreadBreaker}), calls are not made for `cooldownMs` (each request degrades at once, as it would after the fuse); then the first request's
 * call finds out, and the others go without it meanwhile rather than wait for it; its success closes the
 * circuit, its failure opens it again. `failures` 0: no circuit.
 *
 * With a `share`, the circuit's opening and closing are told to the deployment's other processes: another
 * process's opening holds this one open (cockatiel's isolation) until that process says its circuit closed
 * (or twice the cool-down passed without word), so one call per cool-down finds out for the deployment;
 * its closing closes this one (docs/limits-and-security.md, "A model that stops answering").
 *
 * When the circuit opens (here or, through the share, elsewhere), the calls already in flight are let go
 * at once (`cut`: their signal aborted, their requests degrade then) instead of each waiting out its fuse
 * for a provider the circuit has just judged down. A cut call counts neither way.
 *
 * Inside it, each account has a circuit of its own ({@link AccountHolds}, same threshold and cool-down): an
 * account whose own `failures` calls in a row failed makes none for the cool-down, its calls in flight let
 * go, while the other accounts' calls go on; with a `share`, on every process of the deployment.
 */
export class CallCircuit {
  private readonly policy: CircuitBreakerPolicy | null;
  private readonly breaker: SpreadBreaker;
  private readonly holds: AccountHolds;
  /** The calls made while the circuit was closed and not settled yet, with their accounts: what an opening lets go. */
  private readonly inFlight = new Map<AbortController, string>();

  /** `onChange` hears the circuit open (true) and close (false), for the metrics. */
  constructor(
    private readonly name: string,
    failures: number,
    private readonly cooldownMs: number,
    onChange: (open: boolean) => void = () => undefined,
    private readonly share: SharedCircuit | null = null,
    private readonly logger = new Logger(CallCircuit.name),
  ) {
    this.holds = new AccountHolds(failures, cooldownMs);
    this.breaker = new SpreadBreaker(failures, cooldownMs, Date.now, (account) => this.holds.isHeld(account));
    if (failures <= 0) {
      this.policy = null;
      return;
    }
    const policy = circuitBreaker(handleWhen(countsAsFailure), { halfOpenAfter: cooldownMs, breaker: this.breaker });
    this.policy = policy;
    const remote = new RemoteHold(policy);
    policy.onBreak((reason) => {
      // Held open for another process: that one logged why.
      if (!('isolated' in reason)) {
        logger.warn(`${name}: ${failures} calls in a row failed; none made for ${cooldownMs / 1000} s`);
        share?.announce(true, cooldownMs);
      }
      onChange(true);
      this.cutInFlight();
    });
    policy.onReset(() => {
      // An account held while the provider failed everyone was most likely failing for that reason.
      this.holds.clear();
      if (remote.releasing) logger.log(`${name}: calls resume (on another process's word, or its hold ran out)`);
      else {
        logger.log(`${name}: the provider answers again; calls resume`);
        share?.announce(false);
      }
      onChange(false);
    });
    share?.listen({
      opened: (ms) => {
        if (!remote.held) logger.warn(`${name}: another process's calls failed; none made here meanwhile`);
        remote.hold(ms);
      },
      // The provider answered another process: close here too, unless this process's own call is finding out.
      closed: () => {
        if (policy.state === CircuitState.Open) remote.hold(0);
        remote.release();
      },
      // Another process holds an account: its calls here are not made either, those in flight let go.
      held: (account, ms) => {
        if (this.holds.heldElsewhere(account, ms) && policy.state === CircuitState.Closed) this.cutInFlight(account);
      },
      released: (account) => void this.holds.answered(account),
    });
    onChange(false);
  }

  /** Accounts whose calls are not made now, their own calls having failed of late. */
  get heldAccounts(): number {
    return this.holds.held;
  }

  /**
   * Runs `account`'s `call` unless the circuit is open or the account held; `failed` marks a returned result as a failure. `call`
   * is given the signal the circuit's opening aborts (a call that ignores it is let go all the same, and
   * settles unheard).
   */
  async run<T>(
    account: string,
    call: (signal: AbortSignal) => Promise<T>,
    failed: (value: T) => boolean = () => false,
  ): Promise<BreakerRun<T>> {
    const cut = new AbortController();
    if (!this.policy) return { skipped: false, value: await call(cut.signal) };
    // While one call finds out whether the model answers again, the others do not wait for it.
    if (this.policy.state === CircuitState.HalfOpen) return { skipped: 'open' };
    // Only calls made while the circuit is closed are cut: the call finding out settles the opening itself.
    const cuttable = this.policy.state === CircuitState.Closed;
    // Nor is an account held otherwise: an open circuit makes no call anyway, and the call finding out for
    // the deployment must be made whoever's it is.
    const admitted = cuttable ? this.holds.admit(account) : 'go';
    if (!admitted) return { skipped: 'held' };
    this.breaker.called(account);
    // Whether this call's failure leaves its account held, to be told once the circuit has counted it.
    let holdToTell = false;
    try {
      const value = await this.policy.execute(async () => {
        if (cuttable) this.inFlight.set(cut, account);
        let failure = false;
        try {
          const v = await untilAborted(call(cut.signal), cut.signal, () => cut.signal.reason as Error);
          if (failed(v)) throw new FailedResult(v);
          // The account's call finding out was answered: its hold ends on every process.
          if (this.holds.answered(account)) this.share?.announceHold(account, 0);
          return v;
        } catch (err) {
          // The breaker is told whose failure it is about to count (a cut is not counted).
          failure = countsAsFailure(err);
          if (failure) this.breaker.failing(account);
          throw err;
        } finally {
          // Before the circuit counts this call: its own failure's opening must not cut it, nor the hold
          // of its account that this failure may begin.
          this.inFlight.delete(cut);
          if (failure) holdToTell = this.accountFailed(account);
        }
      });
      return { skipped: false, value };
    } catch (err) {
      if (err instanceof BrokenCircuitError) return { skipped: 'open' };
      if (err instanceof CircuitCut) return { skipped: 'cut' };
      if (err instanceof FailedResult) return { skipped: false, value: err.value as T };
      throw err;
    } finally {
      if (admitted === 'probe') this.holds.settled(account);
      // Not when the same failure opened the circuit: its opening, told too, holds every account.
      if (holdToTell && this.policy.state === CircuitState.Closed) this.share?.announceHold(account, this.cooldownMs);
    }
  }

  /**
   * Counts `account`'s failure. One that holds the account (its calls fail, not (yet) the deployment's) lets
   * its calls in flight go, as an opening does. True when the account is held, newly or again (its call
   * finding out failed): the other processes are to be told.
   */
  private accountFailed(account: string): boolean {
    if (this.holds.failed(account)) {
      const s = this.cooldownMs / 1000;
      this.logger.warn(`${this.name}: account ${account}'s last calls failed; none of its calls made for ${s} s`);
      this.cutInFlight(account);
    }
    return this.holds.isHeld(account);
  }

  /** Lets go the calls in flight: all of them, or `account`'s. */
  private cutInFlight(account?: string): void {
    const calls = [...this.inFlight].filter(([, a]) => account === undefined || a === account);
    for (const [c] of calls) {
      this.inFlight.delete(c);
      c.abort(new CircuitCut());
    }
  }
}

/** Whether a call's error is the provider's failure: not a cut, nor a request whose client went away. */
function countsAsFailure(err: unknown): boolean {
  return !(err instanceof CircuitCut) && !isClientGone(err);
}

/**
 * A circuit held open for another process (cockatiel's isolation): until it is released, or for twice the
 * announced cool-down without word (that process may have died; its cool-down and its finding out fit).
 */
class RemoteHold {
  private handle: { dispose(): void } | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** True while the release itself closes the circuit (not this process's call finding the provider back). */
  releasing = false;

  constructor(private readonly policy: CircuitBreakerPolicy) {}

  get held(): boolean {
    return this.handle !== null;
  }

  hold(ms: number): void {
    this.handle ??= this.policy.isolate();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.release(), 2 * ms).unref();
  }

  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const handle = this.handle;
    this.handle = null;
    if (!handle) return;
    this.releasing = true;
    try {
      handle.dispose();
    } finally {
      this.releasing = false;
    }
  }
}

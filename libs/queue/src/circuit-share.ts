import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { InvalidationChannel } from './invalidation-channel';

/** What one circuit hears and says through a {@link CircuitShare}. */
export interface SharedCircuit {
  /**
   * This process's circuit opened for `ms` (its own calls failed), or closed again (its call after the
   * cool-down was answered).
   */
  announce(open: true, ms: number): void;
  announce(open: false): void;
  /**
   * This process holds `account`'s calls for `ms` (its own calls failed: `AccountHolds`), or, with
   * `ms` 0, its hold ended (its call finding out was answered).
   */
  announceHold(account: string, ms: number): void;
  /** Another process's circuit of the same call opened for `ms`, or closed again; it held an account, or let it go. */
  listen(on: CircuitWord): void;
}

/** What a circuit hears from the other processes' circuits of its call. */
export interface CircuitWord {
  opened(ms: number): void;
  closed(): void;
  held(account: string, ms: number): void;
  released(account: string): void;
}

/**
 * The deployment's model circuits, one Redis pub/sub channel for all of them (docs/limits-and-security.md,
 * "A model that stops answering"): when a process's circuit opens, every other process holds its own
 * circuit of that call open until that one's call after the cool-down is answered (or, without word, for
 * twice the cool-down), so a deployment of N gateways (or retrievers) learns an outage from one process's
 * failed calls instead of each one's, and tries the provider once per cool-down, not N times. The subscription
 * starts with the first circuit that listens (the extractor has none).
 *
 * An opening is also kept as a key (`<prefix>:model-circuit:<call>`, for twice the cool-down, deleted when
 * that circuit closes), read when the subscription starts and whenever it comes back: a process started
 * during an outage (a gateway scaled out because requests got slow), or one whose subscription was down
 * when the word went out, holds its circuit open at once instead of learning the outage from its own calls.
 *
 * An account's hold (`AccountHolds`) is told the same way, so a tenant whose own calls fail is held on
 * every process after `MUNINN_MODEL_BREAKER_FAILURES` failures of one process's, not of each one's. It is
 * not kept as a key: a process that missed the word learns from its own calls, as before holds were shared.
 */
export class CircuitShare {
  private readonly self = randomUUID();
  private readonly listeners = new Map<string, CircuitWord[]>();
  private readonly channel: InvalidationChannel;
  private started = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.channel = new InvalidationChannel(
      redis,
      `${prefix}:model-circuit`,
      (message) => this.heard(message),
      () => void this.catchUp(),
    );
  }

  /** The share of one kind of call (`expand`, `embed`, …). */
  of(call: string): SharedCircuit {
    const listen: SharedCircuit['listen'] = (on) => {
      this.listeners.set(call, [...(this.listeners.get(call) ?? []), on]);
      if (!this.started) this.channel.start();
      this.started = true;
      void this.catchUp([call]);
    };
    const announce = (open: boolean, ms = 0) => {
      const message = JSON.stringify({ from: this.self, call, open, ms });
      void this.channel.publish(message);
      const kept = open
        ? this.redis.set(this.key(call), message, 'PX', Math.max(1, 2 * ms))
        : this.redis.del(this.key(call));
      // Not kept: a process starting meanwhile learns the outage from its own calls, as without the key.
      kept.catch(() => undefined);
    };
    const announceHold = (account: string, ms: number) => {
      void this.channel.publish(JSON.stringify({ from: this.self, call, account, ms }));
    };
    return { announce, announceHold, listen } as SharedCircuit;
  }

  stop(): void {
    this.channel.stop();
  }

  private key(call: string): string {
    return `${this.prefix}:model-circuit:${call}`;
  }

  /**
   * The openings kept in Redis for `calls` (default: every call listened to), heard as if just announced,
   * for what is left of them: a key with `left` ms to live holds for `left` (its cool-down's half, doubled).
   */
  private async catchUp(calls: string[] = [...this.listeners.keys()]): Promise<void> {
    for (const call of calls) {
      const [message, left] = await Promise.all([
        this.redis.get(this.key(call)),
        this.redis.pttl(this.key(call)),
      ]).catch(() => [null, 0] as const);
      if (message && left > 0) this.heard(message, left / 2);
    }
  }

  /** One announcement; `holdMs` replaces its cool-down (a kept opening, part of it already spent). */
  private heard(message: string, holdMs?: number): void {
    let m: { from?: unknown; call?: unknown; open?: unknown; account?: unknown; ms?: unknown };
    try {
      m = JSON.parse(message) as typeof m;
    } catch {
      return;
    }
    if (m.from === this.self || typeof m.call !== 'string') return;
    const hold = typeof m.account === 'string';
    if (!hold && typeof m.open !== 'boolean') return;
    if ((hold || m.open) && typeof m.ms !== 'number') return;
    // At most an hour: a message is only ever a cool-down (MUNINN_MODEL_BREAKER_COOLDOWN_S is bounded so).
    const ms = Math.min(Math.max(0, Number(holdMs ?? m.ms)), 3_600_000);
    for (const on of this.listeners.get(m.call) ?? []) {
      if (hold) {
        if (ms > 0) on.held(m.account as string, ms);
        else on.released(m.account as string);
      } else if (m.open) on.opened(ms);
      else on.closed();
    }
  }
}

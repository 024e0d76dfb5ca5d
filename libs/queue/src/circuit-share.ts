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
  /** Another process's circuit of the same call opened for `ms`, or closed again. */
  listen(on: { opened(ms: number): void; closed(): void }): void;
}

/**
 * The deployment's model circuits, one Redis pub/sub channel for all of them (docs/limits-and-security.md,
 * "A model that stops answering"): when a process's circuit opens, every other process holds its own
 * circuit of that call open until that one's call after the cool-down is answered (or, without word, for
 * twice the cool-down), so a deployment of N gateways (or retrievers) learns an outage from one process's
 * failed calls instead of each one's, and tries the provider once per cool-down, not N times. A message
 * lost while a subscription was down costs that process its own few failed calls, as before. The
 * subscription starts with the first circuit that listens (the extractor has none).
 */
export class CircuitShare {
  private readonly self = randomUUID();
  private readonly listeners = new Map<string, { opened(ms: number): void; closed(): void }[]>();
  private readonly channel: InvalidationChannel;
  private started = false;

  constructor(redis: Redis, prefix: string) {
    this.channel = new InvalidationChannel(
      redis,
      `${prefix}:model-circuit`,
      (message) => this.heard(message),
      () => undefined,
    );
  }

  /** The share of one kind of call (`expand`, `embed`, …). */
  of(call: string): SharedCircuit {
    const listen: SharedCircuit['listen'] = (on) => {
      this.listeners.set(call, [...(this.listeners.get(call) ?? []), on]);
      if (!this.started) this.channel.start();
      this.started = true;
    };
    const announce = (open: boolean, ms = 0) =>
      void this.channel.publish(JSON.stringify({ from: this.self, call, open, ms }));
    return { announce, listen } as SharedCircuit;
  }

  stop(): void {
    this.channel.stop();
  }

  private heard(message: string): void {
    let m: { from?: unknown; call?: unknown; open?: unknown; ms?: unknown };
    try {
      m = JSON.parse(message) as typeof m;
    } catch {
      return;
    }
    if (m.from === this.self || typeof m.call !== 'string' || typeof m.open !== 'boolean') return;
    if (m.open && typeof m.ms !== 'number') return;
    // At most an hour: a message is only ever a cool-down (MUNINN_MODEL_BREAKER_COOLDOWN_S is bounded so).
    const ms = Math.min(Math.max(0, Number(m.ms)), 3_600_000);
    for (const on of this.listeners.get(m.call) ?? []) {
      if (m.open) on.opened(ms);
      else on.closed();
    }
  }
}

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { InvalidationChannel } from './invalidation-channel';

/** What one circuit hears and says through a {@link CircuitShare}. */
export interface SharedCircuit {
  /** This process's circuit opened (its own calls failed): the others hold theirs open for `ms`. */
  announce(ms: number): void;
  /** `onOpened(ms)` runs when another process's circuit of the same call opened for `ms`. */
  listen(onOpened: (ms: number) => void): void;
}

/**
 * The deployment's model circuits, one Redis pub/sub channel for all of them (docs/limits-and-security.md,
 * "A model that stops answering"): when a process's circuit opens, every other process holds its own
 * circuit of that call open for the same cool-down, so a deployment of N gateways (or retrievers) learns
 * an outage from one process's failed calls instead of each one's. A message lost while a subscription
 * was down costs that process its own few failed calls, as before. The subscription starts with the
 * first circuit that listens (the extractor has none).
 */
export class CircuitShare {
  private readonly self = randomUUID();
  private readonly listeners = new Map<string, ((ms: number) => void)[]>();
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
    return {
      announce: (ms) => void this.channel.publish(JSON.stringify({ from: this.self, call, ms })),
      listen: (onOpened) => {
        this.listeners.set(call, [...(this.listeners.get(call) ?? []), onOpened]);
        if (!this.started) this.channel.start();
        this.started = true;
      },
    };
  }

  stop(): void {
    this.channel.stop();
  }

  private heard(message: string): void {
    let m: { from?: unknown; call?: unknown; ms?: unknown };
    try {
      m = JSON.parse(message) as typeof m;
    } catch {
      return;
    }
    if (m.from === this.self || typeof m.call !== 'string' || typeof m.ms !== 'number') return;
    // At most an hour: a message is only ever a cool-down (MUNINN_MODEL_BREAKER_COOLDOWN_S is bounded lower).
    const ms = Math.min(Math.max(0, m.ms), 3_600_000);
    for (const onOpened of this.listeners.get(m.call) ?? []) onOpened(ms);
  }
}

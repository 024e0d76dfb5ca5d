import { Logger } from '@nestjs/common';

const WINDOW_MS = 30_000;
const MAX_KEYS = 50;
const CONNECTION = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|Stream isn't writeable|Connection is closed/i;

/**
 * Bounded, rate-limited logging of Redis trouble for one process (docs/operations.md "Redis
 * outages"). Every client (queues, workers, event streams, the shared client) reports here instead of
 * printing: an outage logs one line when it starts, one summary per 30 s while it lasts and one line
 * when Redis is back; any other error logs once per kind per 30 s with a count of the ones held back.
 */
export class RedisErrorLog {
  private readonly logger = new Logger('Redis');
  private downSince: number | null = null;
  private heldBack = 0;
  private lastReport = 0;
  private readonly kinds = new Map<string, { at: number; heldBack: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An `error` event of the client named `source`. */
  error(source: string, err: unknown): void {
    const msg = err instanceof Error ? err.message : String(err);
    if (CONNECTION.test(msg)) return this.connectionError(source, msg);
    const kind = `${source}:${msg.replace(/[0-9a-f-]{8,}|\d+/gi, '#').slice(0, 120)}`;
    const t = this.now();
    const seen = this.kinds.get(kind);
    if (seen && t - seen.at < WINDOW_MS) {
      seen.heldBack++;
      return;
    }
    if (!seen && this.kinds.size >= MAX_KEYS) this.kinds.clear();
    const more = seen?.heldBack ? ` (${seen.heldBack} like it in the last ${Math.round((t - seen.at) / 1000)} s)` : '';
    this.kinds.set(kind, { at: t, heldBack: 0 });
    this.logger.warn(`${source}: ${msg}${more}`);
  }

  /** A client is connected again; logs the end of an outage once. */
  ready(source: string): void {
    if (this.downSince === null) return;
    const s = ((this.now() - this.downSince) / 1000).toFixed(1);
    const held = this.heldBack;
    this.logger.log(`Redis reachable again (${source}) after ${s} s; ${held} connection errors were not logged`);
    this.downSince = null;
    this.heldBack = 0;
  }

  /** Whether an outage is in progress as far as this process has seen. */
  get down(): boolean {
    return this.downSince !== null;
  }

  private connectionError(source: string, msg: string): void {
    const t = this.now();
    if (this.downSince === null) {
      this.downSince = t;
      this.lastReport = t;
      this.heldBack = 0;
      const every = WINDOW_MS / 1000;
      this.logger.warn(`Redis unreachable (${source}: ${msg}); reconnecting with backoff, one summary per ${every} s`);
      return;
    }
    this.heldBack++;
    if (t - this.lastReport < WINDOW_MS) return;
    this.lastReport = t;
    const s = Math.round((t - this.downSince) / 1000);
    this.logger.warn(`Redis still unreachable after ${s} s (${this.heldBack} errors so far; last: ${msg})`);
  }
}

/** The process's one {@link RedisErrorLog}. */
export const redisErrors = new RedisErrorLog();

/** Anything with ioredis/BullMQ-style events. */
interface Emitter {
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** Routes a client's `error` events (and `ready`, when it has one) to {@link redisErrors}. */
export function watchRedisClient<T extends Emitter>(client: T, source: string): T {
  client.on('error', (err) => redisErrors.error(source, err));
  const withReady = client as unknown as { on(event: 'ready', listener: () => void): unknown };
  withReady.on('ready', () => redisErrors.ready(source));
  return client;
}

/** The connection fields both ioredis and BullMQ accept. */
export interface RedisConnection {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  tls?: Record<string, never>;
}

/** ioredis options from a `redis://` / `rediss://` URL (BullMQ takes options, not URLs). */
export function redisOptions(url: string): RedisConnection {
  const u = new URL(url);
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    db: Number.isFinite(db) ? db : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Reconnect delay of every Redis client (ioredis `retryStrategy`): 100 ms doubling to a 2 s cap, never
 * giving up. Short enough that workers resume within about two seconds of Redis returning, long enough
 * that an outage costs a few attempts per second per client (docs/operations.md "Redis outages").
 */
export function redisRetryStrategy(times: number): number {
  return Math.min(2000, 100 * 2 ** Math.min(Math.max(times - 1, 0), 5));
}

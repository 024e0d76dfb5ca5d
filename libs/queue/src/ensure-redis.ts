import { Redis } from 'ioredis';
import { AppConfig } from '@app/config';
import { redisOptions } from './redis-connection';

/** Exits with one clear line when the queued transport is chosen and Redis does not answer. */
export async function ensureRedisReachable(config: AppConfig, timeoutMs = 3000): Promise<void> {
  if (config.queues.transport !== 'bullmq') return;
  const redis = new Redis({
    ...redisOptions(config.redis.url),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    await redis.quit();
  } catch (err) {
    redis.disconnect();
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      `muninn: cannot reach Redis at ${config.redis.url} (${why}); start one with ` +
        `\`redis-server --daemonize yes --port 6379\` or set REDIS_URL (or MUNINN_TRANSPORT=inprocess for a single process without Redis)\n`,
    );
    process.exit(1);
  }
}

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port';

/** A Redis server for tests. `stop()` is a no-op for a server the tests did not start. */
export interface TestRedis {
  url: string;
  source: 'env' | 'spawned' | 'container';
  stop(): Promise<void>;
}

/**
 * Finds or starts Redis for tests, in this order: `REDIS_URL` if set, else `redis-server` from PATH
 * (or `REDIS_SERVER_BIN`) on a free loopback port, else a testcontainers `redis:7-alpine`.
 * Nothing here flushes or deletes keys: tests must use unique prefixes ({@link uniqueTestPrefix}).
 */
export async function startRedisForTests(env: NodeJS.ProcessEnv = process.env): Promise<TestRedis> {
  const given = env.REDIS_URL;
  if (given) {
    assertSafeRedisUrl(given, env);
    await waitForRedis(given, 5_000);
    return { url: given, source: 'env', stop: async () => undefined };
  }
  const bin = env.REDIS_SERVER_BIN ?? 'redis-server';
  if (spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0) return spawnRedis(bin);
  return startRedisContainer();
}

/**
 * Deletes every key under `prefix:` (SCAN, then UNLINK in pages), for a prefix this run made itself
 * ({@link uniqueTestPrefix}): BullMQ keeps up to 5,000 finished jobs per queue until later jobs of the same
 * queue trim them, so a test app's queues outlive it. On the machine's shared Redis they grew to 2 GB over a
 * few days of runs. Best effort and bounded: a Redis that is away (fault tests) is left alone.
 */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    /* away or refusing: nothing to clean now */
  } finally {
    redis.disconnect();
  }
}

/** A key/queue prefix no other test run uses, e.g. `test-find-3f9a1c0b2d4e`. */
export function uniqueTestPrefix(label = 'run'): string {
  return `test-${label}-${randomBytes(6).toString('hex')}`;
}

// Tests write keys; a REDIS_URL that points off this machine is far more likely a shared or production
// server than a test one, so it needs an explicit opt-in.
function assertSafeRedisUrl(url: string, env: NodeJS.ProcessEnv): void {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const local = host === 'localhost' || host === '::1' || host.startsWith('127.');
  if (!local && env.MUNINN_TEST_ALLOW_REMOTE_REDIS !== '1') {
    throw new Error(
      `Refusing to run tests against REDIS_URL host "${host}": it is not a loopback address. ` +
        'Set MUNINN_TEST_ALLOW_REMOTE_REDIS=1 if this server is meant for tests.',
    );
  }
}

async function spawnRedis(bin: string): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'muninn-redis-'));
  const logfile = join(dir, 'redis.log');
  const child = spawn(
    bin,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--logfile',
      logfile,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.unref(); // never keep jest alive; teardown (or the exit hook below) stops it
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000, { unref: true })]);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  try {
    await waitForSpawnedRedis(port, 10_000, () => child.exitCode !== null || child.signalCode !== null);
  } catch (error) {
    const log = safeRead(logfile).split('\n').slice(-10).join('\n');
    await stop();
    throw new Error(`${bin} did not start on port ${port}: ${(error as Error).message}\n${log}`, { cause: error });
  }
  return { url, source: 'spawned', stop };
}

async function startRedisContainer(): Promise<TestRedis> {
  try {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    const stop = async (): Promise<void> => {
      await container.stop();
    };
    return { url: container.getConnectionUrl(), source: 'container', stop };
  } catch (error) {
    throw new Error(
      'No Redis for tests: REDIS_URL is unset, redis-server is not on PATH (apt-get install redis-server), ' +
        `and testcontainers failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Resolves once `url` answers PING (auth and TLS as ioredis handles them); rejects after `timeoutMs`. */
async function waitForRedis(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined); // reported through connect() below
    try {
      await client.connect();
      await client.ping();
      await client.quit();
      return;
    } catch (error) {
      last = error;
      client.disconnect();
      await sleep(50);
    }
  }
  throw new Error(`Redis at ${url} did not answer PING: ${last instanceof Error ? last.message : 'timeout'}`);
}

// A raw PING over TCP: a failed ioredis connect leaves a timer that holds jest's process for ~2 s.
async function waitForSpawnedRedis(port: number, timeoutMs: number, gaveUp: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gaveUp()) throw new Error('the process exited');
    if (await pingOnce(port)) return;
    await sleep(25);
  }
  throw new Error(`no PONG within ${timeoutMs} ms`);
}

/** Whether a Redis on 127.0.0.1:`port` answers one raw PING (no client, so no reconnect timers). */
export function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

function sleep(ms: number, { unref = false } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

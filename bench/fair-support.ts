/**
 * What the scenarios of `npm run bench:fair` share: the HTTP call, percentiles, and one standalone
 * Muninn process (`dist/`, api_key mode) on PGlite or a fresh PostgreSQL database with two tenants,
 * optionally seeded through the store itself.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { QueueName } from '@app/contracts';
import { redisOptions } from '@app/queue';
import { Db, openStore } from '@app/store';
import { createTestDatabase, freePort, waitHealthy } from '@app/testing';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = 'bench-fair-root-key-0123456789';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export type Store = 'pglite' | 'postgres';

export async function api(url: string, path: string, key: string, body?: unknown) {
  const r = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: r.status, body: (await r.json()) as any };
}

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

/** A running standalone process with tenant A (`usersA` keys) and tenant B (one key). */
export interface Deployment {
  url: string;
  prefix: string;
  keysA: string[];
  keyB: string;
  stop(): Promise<void>;
}

/**
 * Starts the built standalone process with `env` on top of the bench's own settings, and makes the tenants.
 * `seed` then writes to the store directly (rows no HTTP route could add fast enough): on PostgreSQL beside
 * the running process, on PGlite (one process owns its folder) between a stop and a restart.
 */
export async function deploy(
  store: Store,
  env: Record<string, string>,
  usersA: number,
  pgBase?: string,
  seed?: (db: Db) => Promise<void>,
): Promise<Deployment> {
  const port = await freePort();
  const prefix = `bench-fair-${port}`;
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-fair-'));
  const db = store === 'postgres' ? await createTestDatabase(pgBase as string) : null;
  const start = () =>
    spawn(process.execPath, ['dist/apps/standalone/src/main.js'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: process.env.BENCH_FAIR_LOG_LEVEL ?? 'error',
        MUNINN_ROOT_API_KEY: ROOT,
        REDIS_URL,
        MUNINN_QUEUE_PREFIX: prefix,
        MUNINN_DATA_DIR: dataDir,
        ...env,
        ...(db ? { DATABASE_URL: db.url } : {}),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  let child = start();
  const end = async (c: ChildProcess, signal: NodeJS.Signals) => {
    c.kill(signal);
    if (c.exitCode === null && c.signalCode === null) await new Promise((r) => c.once('exit', r));
  };
  const stop = async () => {
    await end(child, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  };
  try {
    await waitHealthy(url, 120_000);
    const a = await api(url, '/api/v1/admin/accounts', ROOT, { account_id: 'tenant-a', admin_user_id: 'agent' });
    const keysA: string[] = [a.body.result.user_key];
    for (let u = 1; u < usersA; u++) {
      const r = await api(url, '/api/v1/admin/accounts/tenant-a/users', keysA[0], {
        user_id: `agent${u}`,
        role: 'user',
      });
      keysA.push(r.body.result.user_key);
    }
    const b = await api(url, '/api/v1/admin/accounts', ROOT, { account_id: 'tenant-b', admin_user_id: 'agent' });
    if (seed) {
      if (!db) await end(child, 'SIGTERM');
      const direct = await openStore({ databaseUrl: db?.url ?? null, dataDir });
      try {
        await seed(direct);
      } finally {
        await direct.close();
      }
      if (!db) {
        child = start();
        await waitHealthy(url, 120_000);
      }
    }
    return { url, prefix, keysA, keyB: b.body.result.user_key as string, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The queue's jobs not yet taken (waiting, prioritised, delayed), sampled every 250 ms until `until` (or
 * `done()`); the peak.
 */
export async function peakQueue(
  name: QueueName,
  prefix: string,
  until: number,
  done: () => boolean = () => false,
): Promise<number> {
  const q = new Queue(name, { connection: redisOptions(REDIS_URL), prefix });
  let peak = 0;
  try {
    while (Date.now() < until && !done()) {
      const c = await q.getJobCounts('waiting', 'prioritized', 'delayed');
      peak = Math.max(peak, (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0));
      await sleep(250);
    }
  } finally {
    await q.close();
  }
  return peak;
}

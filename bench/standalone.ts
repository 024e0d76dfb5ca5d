import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, waitHealthy } from '@app/testing';

export type BenchStore = 'pglite' | 'postgres';

/** One standalone process of a bench, on a port, queue prefix, data folder and (PostgreSQL) database of its own. */
export interface Standalone {
  url: string;
  pid: number;
  /** The bench database's URL on PostgreSQL (for reading its backends' CPU), null on PGlite. */
  dbUrl: string | null;
  /** Its queue prefix (another process of the same deployment runs with it). */
  prefix: string;
  /** Stops the process (SIGTERM, waiting for its exit) and removes its folder and database. */
  stop(): Promise<void>;
}

/** Builds `dist/` (the standalone app) of the current directory; the benches boot what was built. */
export function buildStandalone(): void {
  console.log('building dist/ (standalone) …');
  execFileSync('npx', ['nest', 'build', 'standalone'], { stdio: 'inherit' });
}

/**
 * The stores a bench runs on, in order: BENCH_STORES (default "pglite,postgres"), PostgreSQL at
 * MUNINN_BENCH_DATABASE_URL (else MUNINN_TEST_DATABASE_URL), skipped with a line when neither is set.
 */
export function benchStores(): { store: BenchStore; pgBase?: string }[] {
  const pg = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
  const wanted = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',');
  const out: { store: BenchStore; pgBase?: string }[] = [];
  if (wanted.includes('pglite')) out.push({ store: 'pglite' });
  if (wanted.includes('postgres') && pg) out.push({ store: 'postgres', pgBase: pg });
  else if (wanted.includes('postgres')) console.log('PostgreSQL skipped: set MUNINN_BENCH_DATABASE_URL');
  return out;
}

/** Boots `dist/apps/standalone` with `env` over the bench's settings and waits until it is healthy. */
export async function startStandalone(
  name: string,
  target: { store: BenchStore; pgBase?: string },
  env: Record<string, string>,
): Promise<Standalone> {
  const db = target.store === 'postgres' && target.pgBase ? await createTestDatabase(target.pgBase) : null;
  const dataDir = mkdtempSync(join(tmpdir(), `muninn-${name}-`));
  const port = await freePort();
  const prefix = `bench-${name}-${port}`;
  const app = await boot('standalone', port, prefix, { MUNINN_DATA_DIR: dataDir, ...env }, db?.url, async () => {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { ...app, dbUrl: db?.url ?? null, prefix };
}

/**
 * Boots `dist/apps/gateway` as another gateway of `of`'s deployment (its database and queue prefix, so
 * PostgreSQL only) with `env`, and waits until it is healthy; returns its URL and how to stop it.
 */
export async function startGateway(
  of: Standalone,
  env: Record<string, string>,
): Promise<{ url: string; stop(): Promise<void> }> {
  if (!of.dbUrl) throw new Error('another gateway shares the store: PostgreSQL only');
  return boot('gateway', await freePort(), of.prefix, env, of.dbUrl, async () => undefined);
}

/** Spawns a built app on `port` and waits until it is healthy; `stop` ends it (SIGTERM) and then runs `cleanUp`. */
async function boot(
  app: 'standalone' | 'gateway',
  port: number,
  prefix: string,
  env: Record<string, string>,
  databaseUrl: string | undefined,
  cleanUp: () => Promise<void>,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [`dist/apps/${app}/src/main.js`], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      MUNINN_QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'error',
      ...env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    await cleanUp();
  };
  try {
    await waitHealthy(url, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: child.pid as number, stop };
}

/**
 * `npm run bench:fair`: how long another tenant's write takes to become searchable while one tenant
 * floods the index queue, with the fair order off (`MUNINN_FAIR_WINDOW_MS=0`, first in, first out) and
 * on (the default), on embedded PGlite and on PostgreSQL (MUNINN_BENCH_DATABASE_URL, else
 * MUNINN_TEST_DATABASE_URL; skipped when neither is set), each run on a fresh standalone process
 * (`dist/`, api_key mode, default limits).
 *
 * Per run: tenant A batch-writes BENCH_FAIR_BATCH files per request (default 50, `wait:false`) on
 * BENCH_FAIR_C connections (default 4) for BENCH_FAIR_SECONDS (default 10). From the second second,
 * tenant B writes one new file every 500 ms (`wait:false`) and polls `find` every 50 ms until that file
 * is a hit. Printed per store: B's write-to-searchable p50 / p95 / max, A's files acknowledged, and the
 * ratio of B's p50 without and with the fair order. docs/limits-and-security.md "Fair background queues".
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, waitHealthy } from '@app/testing';

const SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 10);
const BATCH = Number(process.env.BENCH_FAIR_BATCH ?? 50);
const CONNECTIONS = Number(process.env.BENCH_FAIR_C ?? 4);
const ROOT = 'bench-fair-root-key-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(url: string, path: string, key: string, body: unknown) {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: r.status, body: (await r.json()) as any };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

/** Tenant A's flood: batches of new files until the deadline; returns the files acknowledged. */
async function floodA(url: string, key: string, until: number): Promise<number> {
  let acked = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        const b = next++;
        const operations = Array.from({ length: BATCH }, (_, k) => ({
          uri: `viking://resources/flood/b${b}-${k}.md`,
          content: `Flood batch ${b} note ${k}: copper lantern meadow report number ${b * BATCH + k}.`,
          mode: 'create',
        }));
        const r = await api(url, '/api/v1/content/batch-write', key, {
          root_uri: 'viking://resources/flood',
          operations,
        });
        if (r.status === 200) acked += BATCH;
        else await sleep(100); // a 429: the flood is at its rate limit
      }
    }),
  );
  return acked;
}

/** Tenant B: one write every 500 ms, each timed until `find` serves it. */
async function probeB(url: string, key: string, from: number, until: number): Promise<number[]> {
  await sleep(Math.max(0, from - Date.now()));
  const waits: Promise<number>[] = [];
  for (let i = 0; Date.now() < until; i++) {
    const word = `quillmark${'abcdefghij'[i % 10]}${'klmnopqrst'[Math.floor(i / 10) % 10]}z`;
    const t0 = performance.now();
    const w = await api(url, '/api/v1/content/write', key, {
      uri: `viking://resources/mine/n${i}.md`,
      content: `B's note ${i} about ${word}.`,
      mode: 'create',
    });
    if (w.status !== 200) throw new Error(`B's write: ${w.status} ${JSON.stringify(w.body).slice(0, 200)}`);
    waits.push(
      (async () => {
        for (;;) {
          const r = await api(url, '/api/v1/search/find', key, { query: word, limit: 3 });
          if (r.status === 200 && r.body.result.resources.some((h: { uri: string }) => h.uri.endsWith(`/n${i}.md`)))
            return performance.now() - t0;
          await sleep(50);
        }
      })(),
    );
    await sleep(500);
  }
  return Promise.all(waits);
}

async function run(store: 'pglite' | 'postgres', fairWindowMs: number, pgBase?: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-fair-'));
  const db = store === 'postgres' ? await createTestDatabase(pgBase as string) : null;
  const child = spawn(process.execPath, ['dist/apps/standalone/src/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      MUNINN_ROOT_API_KEY: ROOT,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      MUNINN_QUEUE_PREFIX: `bench-fair-${port}`,
      MUNINN_DATA_DIR: dataDir,
      MUNINN_FAIR_WINDOW_MS: String(fairWindowMs),
      ...(db ? { DATABASE_URL: db.url } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitHealthy(url, 120_000);
    const keys: string[] = [];
    for (const t of ['a', 'b']) {
      const r = await api(url, '/api/v1/admin/accounts', ROOT, { account_id: `tenant-${t}`, admin_user_id: 'agent' });
      keys.push(r.body.result.user_key);
    }
    const start = Date.now();
    const until = start + SECONDS * 1000;
    const [acked, waits] = await Promise.all([floodA(url, keys[0], until), probeB(url, keys[1], start + 1000, until)]);
    return { acked, waits };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  }
}

async function main() {
  console.log('building dist/ (standalone) …');
  execFileSync('npx', ['nest', 'build', 'standalone'], { stdio: 'inherit' });
  const pgBase = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
  const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];
  const rows: string[] = [];
  for (const store of stores) {
    if (store === 'postgres' && !pgBase) {
      console.log('postgres: skipped (no MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL)');
      continue;
    }
    const p50: number[] = [];
    for (const [label, window] of [
      ['FIFO (window 0)', 0],
      ['fair (window 10 s)', 10_000],
    ] as const) {
      const { acked, waits } = await run(store, window, pgBase);
      p50.push(pct(waits, 50));
      const f = (x: number) => (x / 1000).toFixed(2);
      rows.push(
        `| ${store} | ${label} | ${acked} | ${waits.length} | ${f(pct(waits, 50))} | ${f(pct(waits, 95))} | ${f(Math.max(...waits))} |`,
      );
      console.log(rows[rows.length - 1]);
    }
    rows.push(`| ${store} | ratio FIFO / fair (p50) | | | ${(p50[0] / p50[1]).toFixed(1)}× | | |`);
  }
  console.log(`\nA: batches of ${BATCH} on ${CONNECTIONS} connections for ${SECONDS} s; B: one write per 500 ms\n`);
  console.log("| store | order | A's files acked | B's writes | B searchable p50 s | p95 s | max s |");
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

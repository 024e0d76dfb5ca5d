/**
 * `npm run bench:ingest`: indexing throughput through the public API, on embedded PGlite and on the
 * PostgreSQL server at MUNINN_BENCH_DATABASE_URL (else MUNINN_TEST_DATABASE_URL; skipped when neither is
 * set), each against a freshly built standalone process (`dist/`) on its own Redis prefix.
 *
 * 1. batch-write: BENCH_INGEST_NODES files (default 10,000) into one directory, 250 per
 *    `POST /api/v1/content/batch-write` with `wait:true`, 4 connections (autocannon). Every answer comes
 *    after its files are indexed, so nodes/s is the indexed rate.
 * 2. single writes into that (now large) directory: BENCH_INGEST_SINGLE new files (default 2,000) by
 *    `POST /api/v1/content/write` `mode:"create"`, `wait:true`, 16 connections.
 * Then the standalone process's peak RSS (VmHWM). BENCH_STORES (default "pglite,postgres") picks the
 * stores. Figures are for one noisy machine.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTestDatabase, freePort, waitHealthy } from '@app/testing';

const NODES = Number(process.env.BENCH_INGEST_NODES ?? 10_000);
const SINGLE = Number(process.env.BENCH_INGEST_SINGLE ?? 2_000);
const BATCH = 250;
const DIR = 'viking://resources/bench/big';
const WORDS =
  'river harbor lantern copper meadow quartz violet ember thunder saffron glacier orchard canyon falcon'.split(' ');

interface Phase {
  store: string;
  phase: string;
  requests: number;
  nodes: number;
  seconds: number;
  non2xx: number;
  p50: number;
  p99: number;
  deferred?: number;
}

/** A few hundred bytes of varied prose, so abstracts, lexical text and embeddings do real work. */
function body(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return (
    `# Note ${i}\n\nThe ${w(1)} near the ${w(2)} was ${w(3)} on day ${i % 365}. ` +
    `Observed ${w(4)} and ${w(5)} together; follow-up about the ${w(6)} ${w(7)} (ticket ${(i * 31) % 9973}).\n`
  );
}

async function load(url: string, path: string, requests: number, connections: number, make: (i: number) => unknown) {
  let next = 0;
  let deferred = 0;
  const t0 = performance.now();
  const result = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    connections,
    amount: requests,
    timeout: 300,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(make(next++)) }) }],
    // Count directory summaries the server coalesced into a deferred refresh (reported, not an error).
    setupClient: (client) =>
      client.on('body', (b: Buffer) => void (b.includes('"semantic_status":"deferred"') && deferred++)),
  });
  const seconds = (performance.now() - t0) / 1000;
  return {
    seconds,
    non2xx: result.non2xx + result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    deferred,
  };
}

/** The standalone app from `dist/` of the current directory (the bench itself runs from a compiled copy). */
function startStandalone(env: Record<string, string>) {
  const child = spawn(process.execPath, ['dist/apps/standalone/src/main.js'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, kill: async () => void (child.kill('SIGTERM'), await exited) };
}

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function run(store: 'pglite' | 'postgres', baseUrl?: string): Promise<{ phases: Phase[]; rssMb: number }> {
  const db = store === 'postgres' && baseUrl ? await createTestDatabase(baseUrl) : null;
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-ingest-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = startStandalone({
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    MUNINN_QUEUE_PREFIX: `bench-ingest-${port}`,
    MUNINN_DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    ...(db ? { DATABASE_URL: db.url } : {}),
  });
  try {
    await waitHealthy(url, 120_000);
    const phases: Phase[] = [];
    const batches = Math.ceil(NODES / BATCH);
    const batch = await load(url, '/api/v1/content/batch-write', batches, 4, (b) => ({
      root_uri: DIR,
      wait: true,
      timeout: 300,
      operations: Array.from({ length: Math.min(BATCH, NODES - b * BATCH) }, (_, k) => {
        const i = b * BATCH + k;
        return { uri: `${DIR}/note-${String(i).padStart(6, '0')}.md`, content: body(i), mode: 'create' };
      }),
    }));
    phases.push({ store, phase: `batch-write ×${BATCH}, c=4`, requests: batches, nodes: NODES, ...batch });
    const single = await load(url, '/api/v1/content/write', SINGLE, 16, (i) => ({
      uri: `${DIR}/single-${String(i).padStart(6, '0')}.md`,
      content: body(NODES + i),
      mode: 'create',
      wait: true,
      timeout: 300,
    }));
    phases.push({ store, phase: `single write into ${NODES} files, c=16`, requests: SINGLE, nodes: SINGLE, ...single });
    return { phases, rssMb: peakRssMb(app.child.pid as number) };
  } finally {
    await app.kill();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  console.log('building dist/ (standalone) …');
  execFileSync('npx', ['nest', 'build', 'standalone'], { stdio: 'inherit' });
  const pg = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
  // BENCH_STORES (default "pglite,postgres") picks the stores, in order.
  const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',');
  const runs = stores.includes('pglite') ? [await run('pglite')] : [];
  if (pg && stores.includes('postgres')) runs.push(await run('postgres', pg));
  else if (stores.includes('postgres')) console.log('PostgreSQL skipped: set MUNINN_BENCH_DATABASE_URL');
  console.log(
    '\nstore     phase                                   requests   nodes   seconds   nodes/s   p50 ms   p99 ms  errors  deferred',
  );
  for (const r of runs) {
    for (const p of r.phases) {
      console.log(
        `${p.store.padEnd(9)} ${p.phase.padEnd(39)} ${String(p.requests).padStart(8)} ${String(p.nodes).padStart(7)} ` +
          `${p.seconds.toFixed(1).padStart(9)} ${(p.nodes / p.seconds).toFixed(0).padStart(9)} ${String(p.p50).padStart(8)} ` +
          `${String(p.p99).padStart(8)} ${String(p.non2xx).padStart(7)} ${String(p.deferred ?? '').padStart(9)}`,
      );
    }
    console.log(`${r.phases[0].store.padEnd(9)} peak RSS of the standalone process: ${r.rssMb.toFixed(0)} MB`);
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * `npm run bench:neighbour`: what one tenant's largest valid searches do to another tenant's default context requests
 * (docs/limits-and-security.md, "Rate limits and fairness": large searches have a narrower lane). On each store of
 * BENCH_STORES (default: PostgreSQL when MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL names a server, in a
 * fresh database; then embedded PGlite), for each large-search lane size of BENCH_NEIGHBOUR_LANES (default 8,2,1:
 * 8 is the account's whole request line, as before the lane), one process in api_key mode with default limits
 * otherwise: tenant A (3,000 memories every query word matches) and tenant B (300 such memories); B's default context
 * requests one after another, BENCH_NEIGHBOUR_B of them (default 40), alone and then while A sends context requests
 * of six quota buckets of 1,000 at 32,000 tokens on BENCH_NEIGHBOUR_C connections (default 8). Printed: B's p50 / p90
 * / max alone and during, A's requests answered per second, and B's p50 during ÷ alone. With
 * BENCH_NEIGHBOUR_LOAD=write, A sends batch-writes near the 10 MiB body bound instead, and the lane sizes are those of
 * large bodies ("Large bodies have a narrower lane"). Each run is repeated for each count of plan threads in
 * BENCH_NEIGHBOUR_THREADS (`MUNINN_ASSEMBLE_THREADS`, default 0,1: plans on the event loop, then large plans on a
 * worker thread; "Large plans on worker threads"). BENCH_SAMPLE=n prints n of B's telemetry summaries per run.
 * BENCH_NEIGHBOUR_B_LARGE=1: B's requests are the same largest valid context requests as A's, so B's plans wait for
 * the plan threads beside A's (the threads' line taken account by account, "Large plans on worker threads").
 */
import { performance } from 'node:perf_hooks';
import { startTestApp, TestApp } from '@app/testing';
import { ALL_BUCKETS, generator, KINDS, memoryText, query } from './heavy-corpus';

const ROOT_KEY = 'bench-neighbour-root-key-0123456789';
const ROOT = 'viking://user/boss/memories';
const CONNECTIONS = Number(process.env.BENCH_NEIGHBOUR_C ?? 8);
const B_REQUESTS = Number(process.env.BENCH_NEIGHBOUR_B ?? 40);
const LANES = (process.env.BENCH_NEIGHBOUR_LANES ?? '8,2,1').split(',').map(Number);
const THREADS = (process.env.BENCH_NEIGHBOUR_THREADS ?? '0,1').split(',').map(Number);
const PG_URL = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
const STORES = (process.env.BENCH_STORES ?? (PG_URL ? 'postgres,pglite' : 'pglite')).split(',') as (
  'postgres' | 'pglite'
)[];
const LARGE = { mode: 'context', max_tokens: 32000, quotas: ALL_BUCKETS };
const B_LARGE = process.env.BENCH_NEIGHBOUR_B_LARGE === '1';
// BENCH_NEIGHBOUR_LOAD=write: A sends batch-writes near the body bound instead (64 files of ~150 KB, upserted over
// the same URIs so the tenant stays within its quota; each write changes every file, so each is indexed again).
const LOAD = process.env.BENCH_NEIGHBOUR_LOAD === 'write' ? 'write' : 'search';
const WRITE_FILES = 64;
const WRITE_FILE_CHARS = 150_000;
/** The lane the load meets: large searches, or large bodies. */
const LANE_VARIABLE = LOAD === 'write' ? 'MUNINN_ACCOUNT_MAX_LARGE_BODIES' : 'MUNINN_ACCOUNT_MAX_LARGE_SEARCHES';

/** `count` memories of 150 vocabulary words each, written through batch-write with `key`. */
async function seed(app: TestApp, key: string, count: number): Promise<void> {
  const next = generator(7);
  for (let i = 0; i < count; i += 200) {
    const operations = Array.from({ length: Math.min(200, count - i) }, (_, j) => {
      return { uri: `${ROOT}/${KINDS[(i + j) % 4]}/m${i + j}.md`, content: memoryText(next, i + j) };
    });
    const r = await app.request('POST', '/api/v1/content/batch-write', {
      key,
      body: { root_uri: ROOT, operations: operations.map((o) => ({ ...o, mode: 'create' })), wait: true, timeout: 600 },
    });
    if (r.status !== 200) throw new Error(`batch-write: ${r.status} ${r.text.slice(0, 300)}`);
  }
}

interface Latency {
  p50: number;
  p90: number;
  max: number;
}

// BENCH_SAMPLE=n prints the telemetry (stage times) of n of B's requests while A runs.
const SAMPLES = Number(process.env.BENCH_SAMPLE ?? 0);

/** B's default context requests, one after another; `sample` prints some of their telemetry. */
async function tenantB(app: TestApp, key: string, n: number, sample = false): Promise<Latency> {
  const times: number[] = [];
  const every = SAMPLES > 0 ? Math.max(1, Math.floor(n / SAMPLES)) : 0;
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    const telemetry = sample && every > 0 && k % every === every - 1;
    const kind = B_LARGE ? LARGE : { mode: 'context' };
    const body = { query: query(k), ...kind, ...(telemetry ? { telemetry: true } : {}) };
    const r = await app.request('POST', '/api/v1/search/search', { key, body });
    if (r.status !== 200) throw new Error(`tenant B: ${r.status} ${r.text.slice(0, 300)}`);
    if (telemetry) console.log(JSON.stringify(r.body.telemetry.summary));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], p90: times[Math.floor(n * 0.9)], max: times[n - 1] };
}

const largeSearch = (app: TestApp, key: string, k: number) =>
  app.request('POST', '/api/v1/search/search', { key, body: { query: query(k), ...LARGE } });

/** One batch-write near the body bound: connection `c`'s files, their `k`-th version. */
function largeWrite(app: TestApp, key: string, c: number, k: number) {
  const line = `Version ${k} of the ${query(k)} notes. `;
  const content = line.repeat(Math.ceil(WRITE_FILE_CHARS / line.length)).slice(0, WRITE_FILE_CHARS);
  const operations = Array.from({ length: WRITE_FILES }, (_, j) => ({
    uri: `${ROOT}/load/c${c}/f${j}.md`,
    content,
    mode: 'upsert',
  }));
  return app.request('POST', '/api/v1/content/batch-write', { key, body: { root_uri: ROOT, operations } });
}

const fmt = (l: Latency) => `${l.p50.toFixed(0)} / ${l.p90.toFixed(0)} / ${l.max.toFixed(0)}`;

async function runLane(store: 'postgres' | 'pglite', lane: number, threads: number): Promise<number> {
  const app = await startTestApp({
    store,
    rootApiKey: ROOT_KEY,
    env: {
      MUNINN_STATEMENT_TIMEOUT_MS: '600000',
      [LANE_VARIABLE]: String(lane),
      MUNINN_ASSEMBLE_THREADS: String(threads),
    },
  });
  try {
    const keys: string[] = [];
    for (const account of ['tenant-a', 'tenant-b']) {
      const r = await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT_KEY,
        body: { account_id: account, admin_user_id: 'boss' },
      });
      keys.push(r.body.result.user_key);
    }
    const [a, b] = keys;
    await seed(app, a, 3000);
    await seed(app, b, 300);
    await tenantB(app, b, 5); // warm-up
    const alone = await tenantB(app, b, B_REQUESTS);
    let stop = false;
    let answered = 0;
    const refused = new Map<string, number>();
    const loops = Array.from({ length: CONNECTIONS }, async (_, i) => {
      for (let k = i * 1000; !stop; k++) {
        const r = LOAD === 'write' ? await largeWrite(app, a, i, k) : await largeSearch(app, a, k);
        if (r.status === 200) answered++;
        else if (r.status === 429) {
          const limit = String(r.body.error?.details?.limit);
          refused.set(limit, (refused.get(limit) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 50));
        } else throw new Error(`tenant A: ${r.status} ${r.text.slice(0, 300)}`);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 2000)); // A's connections all busy
    const t0 = performance.now();
    const during = await tenantB(app, b, B_REQUESTS, true);
    const seconds = (performance.now() - t0) / 1000;
    const counted = answered;
    stop = true;
    await Promise.all(loops);
    const ratio = during.p50 / alone.p50;
    console.log(
      `| ${store} | ${lane} | ${threads} | ${fmt(alone)} | ${fmt(during)} | ${(counted / seconds).toFixed(1)} | ${ratio.toFixed(1)} |`,
    );
    if (refused.size) console.log(`  A refused 429 by limit: ${JSON.stringify(Object.fromEntries(refused))}`);
    return during.p50;
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const what =
    LOAD === 'write'
      ? `batch-writes of ${WRITE_FILES} files of ${WRITE_FILE_CHARS / 1000} KB`
      : 'six-bucket 1,000 requests at 32,000 tokens';
  const bKind = B_LARGE ? 'largest valid context requests' : 'default context requests';
  console.log(`tenant A: ${CONNECTIONS} connections of ${what}; B: ${B_REQUESTS} ${bKind}`);
  const slots = LOAD === 'write' ? 'large-body slots' : 'large-search slots';
  console.log(
    `| store | ${slots} | plan threads | B alone p50 / p90 / max ms | B during A | A answered/s | B during ÷ alone |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  const p50s = new Map<string, number>();
  const runs = LANES.flatMap((lane) => THREADS.map((threads) => `${lane}:${threads}`));
  for (const store of STORES) {
    for (const run of runs) {
      const [lane, threads] = run.split(':').map(Number) as [number, number];
      p50s.set(`${store}:${run}`, await runLane(store, lane, threads));
    }
  }
  if (STORES.length === 2) {
    console.log('\nB p50 during A, PostgreSQL ÷ PGlite, same run:');
    for (const run of runs) {
      const [lane, threads] = run.split(':');
      const ratio = p50s.get(`postgres:${run}`)! / p50s.get(`pglite:${run}`)!;
      console.log(`  ${lane} slots, ${threads} plan threads: ${ratio.toFixed(2)}`);
    }
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

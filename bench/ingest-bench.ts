/**
 * `npm run bench:ingest`: indexing throughput through the public API, on embedded PGlite and on the
 * PostgreSQL server at MUNINN_BENCH_DATABASE_URL (else MUNINN_TEST_DATABASE_URL; skipped when neither is
 * set), each against a freshly built standalone process (`dist/`) on its own Redis prefix.
 *
 * 1. batch-write: BENCH_INGEST_NODES files (default 10,000) into one directory, 250 per
 *    `POST /api/v1/content/batch-write` with `wait:true`, 4 connections (autocannon; BENCH_INGEST_BATCH_C). Every answer comes
 *    after its files are indexed, so nodes/s is the indexed rate.
 * 2. single writes into that (now large) directory: BENCH_INGEST_SINGLE new files (default 2,000) by
 *    `POST /api/v1/content/write` `mode:"create"`, `wait:true`, 16 connections (BENCH_INGEST_SINGLE_C).
 * 3. the same number of single writes of other files, each with its own `Idempotency-Key`, then 4. all of
 *    them sent again with the same keys (each answered with the kept reply, nothing written).
 * Per phase: nodes/s, latency, and the CPU time per node of the standalone process and of the
 * PostgreSQL backends serving its database (from /proc: on a shared machine CPU per node moves much
 * less than nodes/s), and the mean ms per write stage from the `muninn_write_stage_duration_seconds`
 * histogram (gateway stages per request, `index_*` per index job; docs/architecture.md, "Stage
 * timings"). Then the standalone process's peak RSS (VmHWM). BENCH_STORES (default "pglite,postgres")
 * picks the stores. Figures are for one noisy machine.
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { BenchStore, benchStores, buildStandalone, startStandalone } from './standalone';

const NODES = Number(process.env.BENCH_INGEST_NODES ?? 10_000);
const SINGLE = Number(process.env.BENCH_INGEST_SINGLE ?? 2_000);
/** Connections of each phase: BENCH_INGEST_BATCH_C (default 4) and BENCH_INGEST_SINGLE_C (default 16). */
const BATCH_C = Number(process.env.BENCH_INGEST_BATCH_C ?? 4);
const SINGLE_C = Number(process.env.BENCH_INGEST_SINGLE_C ?? 16);
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
  /** CPU ms per node: the standalone process, and the PostgreSQL backends of its database. */
  appCpu: number;
  dbCpu: number;
  /** Mean ms per write stage over the phase. */
  stages: Record<string, number>;
}

type Totals = Map<string, { sum: number; count: number }>;

/** utime + stime of a process in ms (fields 14 and 15 of /proc/pid/stat, in ticks; USER_HZ is 100). */
function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0; // exited meanwhile
  }
}

/** CPU ms so far per PostgreSQL backend serving the bench database (the server runs on this machine). */
async function backendCpu(pg: Client | null): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!pg) return out;
  const { rows } = await pg.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  for (const { pid } of rows) out.set(pid, procCpuMs(pid));
  return out;
}

/** Backend CPU between two readings: a new backend counts from 0, an exited one is lost. */
function backendDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

/** Sum and count per stage of `muninn_write_stage_duration_seconds` as /metrics has them now. */
async function stageTotals(url: string): Promise<Totals> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Totals = new Map();
  for (const m of text.matchAll(/^muninn_write_stage_duration_seconds_(sum|count)\{stage="([^"]+)"\} (\S+)$/gm)) {
    const e = out.get(m[2]) ?? { sum: 0, count: 0 };
    e[m[1] as 'sum' | 'count'] = Number(m[3]);
    out.set(m[2], e);
  }
  return out;
}

function stageMeans(before: Totals, after: Totals): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [stage, a] of after) {
    const b = before.get(stage) ?? { sum: 0, count: 0 };
    if (a.count > b.count) out[stage] = ((a.sum - b.sum) * 1000) / (a.count - b.count);
  }
  return out;
}

/** Runs one phase and measures it: CPU of the app and of the store's backends, stage means. */
async function measured(
  url: string,
  appPid: number,
  pg: Client | null,
  nodes: number,
  work: () => Promise<Omit<Phase, 'store' | 'phase' | 'requests' | 'nodes' | 'appCpu' | 'dbCpu' | 'stages'>>,
) {
  const [t0, b0, a0] = [await stageTotals(url), await backendCpu(pg), procCpuMs(appPid)];
  const r = await work();
  const [t1, b1, a1] = [await stageTotals(url), await backendCpu(pg), procCpuMs(appPid)];
  return { ...r, appCpu: (a1 - a0) / nodes, dbCpu: backendDelta(b0, b1) / nodes, stages: stageMeans(t0, t1) };
}

/** A few hundred bytes of varied prose, so abstracts, lexical text and embeddings do real work. */
function body(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return (
    `# Note ${i}\n\nThe ${w(1)} near the ${w(2)} was ${w(3)} on day ${i % 365}. ` +
    `Observed ${w(4)} and ${w(5)} together; follow-up about the ${w(6)} ${w(7)} (ticket ${(i * 31) % 9973}).\n`
  );
}

async function load(
  url: string,
  path: string,
  requests: number,
  connections: number,
  make: (i: number) => unknown,
  idempotencyKey?: (i: number) => string,
) {
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
    requests: [
      {
        setupRequest: (req) => {
          const i = next++;
          const headers = idempotencyKey ? { ...req.headers, 'idempotency-key': idempotencyKey(i) } : req.headers;
          return { ...req, headers, body: JSON.stringify(make(i)) };
        },
      },
    ],
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

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function run(target: { store: BenchStore; pgBase?: string }): Promise<{ phases: Phase[]; rssMb: number }> {
  const { store } = target;
  const app = await startStandalone('ingest', target, {});
  const { url, pid } = app;
  const pg = app.dbUrl ? new Client({ connectionString: app.dbUrl }) : null;
  try {
    await pg?.connect();
    const phases: Phase[] = [];
    const batches = Math.ceil(NODES / BATCH);
    const batch = await measured(url, pid, pg, NODES, () =>
      load(url, '/api/v1/content/batch-write', batches, BATCH_C, (b) => ({
        root_uri: DIR,
        wait: true,
        timeout: 300,
        operations: Array.from({ length: Math.min(BATCH, NODES - b * BATCH) }, (_, k) => {
          const i = b * BATCH + k;
          return { uri: `${DIR}/note-${String(i).padStart(6, '0')}.md`, content: body(i), mode: 'create' };
        }),
      })),
    );
    phases.push({ store, phase: `batch-write ×${BATCH}, c=${BATCH_C}`, requests: batches, nodes: NODES, ...batch });
    const single = await measured(url, pid, pg, SINGLE, () =>
      load(url, '/api/v1/content/write', SINGLE, SINGLE_C, (i) => ({
        uri: `${DIR}/single-${String(i).padStart(6, '0')}.md`,
        content: body(NODES + i),
        mode: 'create',
        wait: true,
        timeout: 300,
      })),
    );
    phases.push({
      store,
      phase: `single write into ${NODES} files, c=${SINGLE_C}`,
      requests: SINGLE,
      nodes: SINGLE,
      ...single,
    });
    // 3. The same writes of other files, each with an Idempotency-Key; 4. every one of them sent again:
    // each retry is answered with the kept reply (docs/limits-and-security.md, "Retrying a write").
    const keyed = (i: number) => ({
      uri: `${DIR}/keyed-${String(i).padStart(6, '0')}.md`,
      content: body(NODES + SINGLE + i),
      mode: 'create',
      wait: true,
      timeout: 300,
    });
    const keyOf = (i: number) => `bench-key-${i}`;
    for (const phase of ['single write + Idempotency-Key', 'retried (replayed) writes']) {
      const r = await measured(url, pid, pg, SINGLE, () =>
        load(url, '/api/v1/content/write', SINGLE, SINGLE_C, keyed, keyOf),
      );
      phases.push({ store, phase: `${phase}, c=${SINGLE_C}`, requests: SINGLE, nodes: SINGLE, ...r });
    }
    return { phases, rssMb: peakRssMb(pid) };
  } finally {
    await pg?.end().catch(() => undefined);
    await app.stop();
  }
}

async function main() {
  buildStandalone();
  const runs: { phases: Phase[]; rssMb: number }[] = [];
  for (const target of benchStores()) runs.push(await run(target));
  console.log(
    '\nstore     phase                                   requests   nodes   seconds   nodes/s   p50 ms   p99 ms  errors  deferred  app CPU ms/node  db CPU ms/node',
  );
  for (const r of runs) {
    for (const p of r.phases) {
      console.log(
        `${p.store.padEnd(9)} ${p.phase.padEnd(39)} ${String(p.requests).padStart(8)} ${String(p.nodes).padStart(7)} ` +
          `${p.seconds.toFixed(1).padStart(9)} ${(p.nodes / p.seconds).toFixed(0).padStart(9)} ${String(p.p50).padStart(8)} ` +
          `${String(p.p99).padStart(8)} ${String(p.non2xx).padStart(7)} ${String(p.deferred ?? '').padStart(9)} ` +
          `${p.appCpu.toFixed(2).padStart(16)} ${p.dbCpu.toFixed(2).padStart(15)}`,
      );
    }
    console.log(`${r.phases[0].store.padEnd(9)} peak RSS of the standalone process: ${r.rssMb.toFixed(0)} MB`);
  }
  // Mean ms per write stage: gateway stages per request, index_* per index job (one per request).
  const phases = runs.flatMap((r) => r.phases);
  const names = [...new Set(phases.flatMap((p) => Object.keys(p.stages)))];
  console.log(`\n| stage (mean ms) | ${phases.map((p) => `${p.store} ${p.phase.split(' ')[0]}`).join(' | ')} |`);
  console.log(`|---|${phases.map(() => '---:').join('|')}|`);
  for (const n of names) {
    console.log(
      `| ${n} | ${phases.map((p) => (p.stages[n] === undefined ? '' : p.stages[n].toFixed(2))).join(' | ')} |`,
    );
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});

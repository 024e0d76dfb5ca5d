/**
 * `npm run bench:context`: one tenant of BENCH_NODES memory files (default 10k; "10000,100000" runs
 * both; 2/3 English, 1/3 Chinese) on each store of BENCH_STORES (default: PostgreSQL when
 * MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL names a server, a fresh database is created on
 * it; then embedded PGlite), then mode="context" requests over HTTP driven by autocannon at each
 * concurrency of BENCH_LEVELS ("c:requests" pairs) through BENCH_TRANSPORTS (default bullmq).
 * Per store it also measures, in the same run:
 *   - the floor: the same request's retrieval calls (planned as the gateway plans them) answered by
 *     the retriever's FindService directly (embed + the same SQL), no HTTP and no queue;
 *   - the stages at concurrency 1: floor, one /find over HTTP→queue→worker, the whole context request;
 *   - the process's peak RSS (app + store worker + load generator: one process).
 * Load generator and server share the process and the machine: figures are comparable between runs
 * on one machine, not absolute.
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { FindJob } from '@app/contracts';
import { EMBEDDER, Embedder } from '@app/embed';
import {
  directorySidecars,
  fileAbstract,
  Identity,
  MEMORY_ABSTRACT_LIMIT,
  openContext,
  planRetrievalCalls,
  resolveFindTargets,
  searchText,
} from '@app/kernel';
import { bulkInsertIndexed, Db, ensureVectorIndex, IndexedNodeInput, STORE_DB } from '@app/store';
import { startTestApp, TestApp } from '@app/testing';
import { parseSearchContext } from '../apps/gateway/src/context/context-request.parser';
import { FindService } from '../apps/retriever/src/find/find.service';
import { MEMORY_KINDS, syntheticFile } from './find-corpus';

const SIZES = (process.env.BENCH_NODES ?? '10000').split(',').map(Number);
const LEVELS: [number, number][] = (process.env.BENCH_LEVELS ?? '1:100,16:480,64:960')
  .split(',')
  .map((p) => p.split(':').map(Number) as [number, number]);
const PG_URL = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
const STORES = (process.env.BENCH_STORES ?? (PG_URL ? 'postgres,pglite' : 'pglite')).split(',') as (
  'postgres' | 'pglite'
)[];
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'bullmq').split(',') as ('bullmq' | 'inprocess')[];
const FLOOR_N = Number(process.env.BENCH_FLOOR ?? 100);
const USER = 'default';
// The dev-mode caller every unauthenticated request gets (no API keys configured).
const CALLER: Identity = { accountId: 'default', userId: USER, role: 'root', actorPeerId: null };
const PATH = '/api/v1/search/search';

interface Row {
  store: string;
  nodes: number;
  transport: string;
  c: number;
  n: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU per request: this process (server and load generator), and the store's backends (PostgreSQL). */
  cpuApp?: number;
  cpuStore?: number;
}
interface Stages {
  store: string;
  nodes: number;
  floor: Pct;
  find: Pct;
  context: Pct;
  rssMb: number;
}
interface Pct {
  p50: number;
  p99: number;
}
/** Mean ms per stage over one load level, from the /metrics histogram (docs/architecture.md, "Stage timings"). */
type StageMeans = Record<string, number>;
interface Breakdown {
  label: string;
  means: StageMeans;
}

/**
 * CPU time (ms) used so far by this process and, per backend pid, by the PostgreSQL backends serving the
 * bench database (read from /proc: the server runs on this machine). A machine shared with other work
 * changes latency and req/s from run to run; CPU per request moves much less, so it is what compares.
 */
async function cpuMs(app: TestApp, store: string): Promise<{ app: number; store: Map<number, number> }> {
  const u = process.cpuUsage();
  const appMs = (u.user + u.system) / 1000;
  const backends = new Map<number, number>();
  if (store !== 'postgres') return { app: appMs, store: backends };
  const db = app.nest.get<Db>(STORE_DB);
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
  );
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime (fields 14 and 15 of stat) in ticks; USER_HZ is 100 on Linux.
      backends.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // A backend that exited meanwhile.
    }
  }
  return { app: appMs, store: backends };
}

/** Backend CPU between two readings: per pid still there (a new one counts from 0; an exited one is lost). */
function storeDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

/** Sum and count per stage of `muninn_context_stage_duration_seconds` as /metrics has them now. */
async function stageTotals(app: TestApp): Promise<Map<string, { sum: number; count: number }>> {
  const text = (await app.request('GET', '/metrics')).text;
  const out = new Map<string, { sum: number; count: number }>();
  for (const m of text.matchAll(/^muninn_context_stage_duration_seconds_(sum|count)\{stage="([^"]+)"\} (\S+)$/gm)) {
    const e = out.get(m[2]) ?? { sum: 0, count: 0 };
    e[m[1] as 'sum' | 'count'] = Number(m[3]);
    out.set(m[2], e);
  }
  return out;
}

/** Mean ms per stage between two readings of {@link stageTotals}, per context request (jobs: per job). */
function stageMeans(
  before: Map<string, { sum: number; count: number }>,
  after: Map<string, { sum: number; count: number }>,
): StageMeans {
  const out: StageMeans = {};
  for (const [stage, a] of after) {
    const b = before.get(stage) ?? { sum: 0, count: 0 };
    if (a.count > b.count) out[stage] = ((a.sum - b.sum) * 1000) / (a.count - b.count);
  }
  return out;
}

async function seed(app: TestApp, store: 'postgres' | 'pglite', n: number): Promise<string[]> {
  const db = app.nest.get<Db>(STORE_DB);
  const embedder = app.nest.get<Embedder>(EMBEDDER);
  // Bulk loads go in without the HNSW index, built once afterwards (as bench:find does; maintaining it
  // row by row made a 100k seed take about 20 minutes). The build wants the graph in memory.
  // The retriever builds it at start-up without waiting (on an empty table, a moment): a drop before
  // that build ends would be undone by it, and the seed would maintain the graph after all.
  const name = `nodes_embedding_hnsw_${embedder.dim}`;
  for (let i = 0; i < 600; i++) {
    const { rows } = await db.query<{ valid: boolean }>(
      `SELECT i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1`,
      [name],
    );
    if (rows[0]?.valid) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await db.exec(`DROP INDEX IF EXISTS ${name}`);
  const queries: string[] = [];
  for (let start = 0; start < n; start += 500) {
    const files = Array.from({ length: Math.min(500, n - start) }, (_, i) =>
      syntheticFile(7, start + i, USER, Math.max(200, n / 4)),
    );
    const abstracts = files.map((f) => fileAbstract(f.uri, f.content, MEMORY_ABSTRACT_LIMIT));
    const vectors = await embedder.embed(
      abstracts.map((a, i) => `${files[i].uri.slice(files[i].uri.lastIndexOf('/') + 1)}\n${a}`),
    );
    const nodes: IndexedNodeInput[] = files.map((f, i) => ({
      uri: f.uri,
      kind: 'file',
      content: f.content,
      abstract: abstracts[i],
      searchText: searchText(abstracts[i]),
      embedding: vectors[i],
    }));
    await bulkInsertIndexed(db, 'default', nodes, embedder.id);
    queries.push(...files.filter((_, i) => i % 10 === 0).map((f) => f.query));
  }
  const dirs: IndexedNodeInput[] = [`viking://user/${USER}`, `viking://user/${USER}/memories`].map((uri) => ({
    uri,
    kind: 'directory',
    content: '',
    abstract: '',
    searchText: '',
    embedding: null,
  }));
  for (const k of MEMORY_KINDS) {
    const uri = `viking://user/${USER}/memories/${k}`;
    const side = directorySidecars(uri, []);
    dirs.push({
      uri,
      kind: 'directory',
      content: '',
      abstract: side.abstract,
      overview: side.overview,
      searchText: searchText(side.abstract),
      embedding: null,
    });
  }
  await bulkInsertIndexed(db, 'default', dirs, embedder.id);
  const t0 = performance.now();
  // A session setting: PGlite has one connection, and the pool hands PostgreSQL's idle one back.
  await db.exec(`SET maintenance_work_mem = '${store === 'pglite' ? '512MB' : '1GB'}'`);
  const built = await ensureVectorIndex(db, embedder.dim);
  await db.exec('RESET maintenance_work_mem');
  if (!built) throw new Error('the HNSW index was there during the seed: the bulk load maintained it row by row');
  console.log(`[${store}] HNSW index over ${n} memories built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return queries;
}

/** HTTP load by autocannon: `n` context requests over `c` connections, each with the next query. */
async function load(
  app: TestApp,
  queries: string[],
  c: number,
  n: number,
): Promise<Omit<Row, 'store' | 'nodes' | 'transport'>> {
  let next = 0;
  let failed = 0;
  const result = await autocannon({
    url: app.url,
    connections: c,
    amount: n,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: PATH,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ query: queries[next++ % queries.length], mode: 'context' }),
        }),
        onResponse: (status, body) => {
          // A context answer with failed retrieval calls is a 200 with retrieval_errors: an error here.
          if (status === 200 && /"retrieval_errors":\s*[1-9]/.test(body)) failed++;
        },
      },
    ],
  });
  const total = result.requests.total;
  return {
    c,
    n: total,
    rps: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts + failed,
  };
}

/** The same retrieval calls a default context request makes, answered by FindService directly. */
async function floor(app: TestApp, queries: string[]): Promise<Pct> {
  const finder = app.nest.get(FindService);
  const ms: number[] = [];
  for (let i = 0; i < FLOOR_N; i++) {
    const query = queries[i % queries.length];
    const p = await parseSearchContext({ query, mode: 'context' }, CALLER, new Date());
    const calls = planRetrievalCalls({
      identity: CALLER,
      quotas: p.quotas,
      limit: p.limit,
      peerScope: p.peerScope,
      queries: [query],
      excludedCount: 0,
    });
    const t0 = performance.now();
    await Promise.all(
      calls.map((call) => {
        const identity = call.openContext ? openContext(CALLER) : CALLER;
        const job: FindJob = {
          identity,
          query: call.query,
          filter: p.filter,
          levels: null,
          limit: call.limit,
          scoreThreshold: p.scoreThreshold,
          targets: call.targetUri === '' ? resolveFindTargets(identity, '') : [call.targetUri],
        };
        return finder.find(job);
      }),
    );
    ms.push(performance.now() - t0);
  }
  return pct(ms);
}

let samples = Number(process.env.BENCH_SAMPLE ?? 0);

/** Sequential HTTP requests (concurrency 1), timed one by one. */
async function sequential(app: TestApp, path: string, bodies: unknown[]): Promise<Pct> {
  const ms: number[] = [];
  for (const body of bodies) {
    const t0 = performance.now();
    const r = await app.request('POST', path, { body });
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${r.text.slice(0, 200)}`);
    // BENCH_SAMPLE=n prints the telemetry of the first n requests that asked for it (per-job stages).
    if (r.body.telemetry && samples-- > 0) console.log(JSON.stringify(r.body.telemetry.summary));
  }
  return pct(ms);
}

function pct(ms: number[]): Pct {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function run(store: 'postgres' | 'pglite', nodes: number, transport: 'bullmq' | 'inprocess') {
  if (store === 'postgres') process.env.MUNINN_TEST_DATABASE_URL = PG_URL;
  const app = await startTestApp({
    store,
    env: { MUNINN_TRANSPORT: transport, MUNINN_WORKER_CONCURRENCY: '16', MUNINN_STATEMENT_TIMEOUT_MS: '600000' },
  });
  try {
    const t0 = performance.now();
    const queries = await seed(app, store, nodes);
    // Statistics as autovacuum would have them on a running server.
    await app.nest.get<Db>(STORE_DB).exec('ANALYZE nodes');
    console.log(
      `[${store} ${transport}] seeded ${nodes} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    for (let i = 0; i < 20; i++) await app.request('POST', PATH, { body: { query: queries[i], mode: 'context' } });
    const bodies = queries.slice(0, FLOOR_N);
    const stages: Stages = {
      store,
      nodes,
      floor: await floor(app, queries),
      find: await sequential(
        app,
        '/api/v1/search/find',
        bodies.map((query) => ({ query, limit: 10 })),
      ),
      context: await sequential(
        app,
        PATH,
        bodies.map((query) => ({ query, mode: 'context', ...(samples > 0 ? { telemetry: true } : {}) })),
      ),
      rssMb: 0,
    };
    const rows: Row[] = [];
    const breakdowns: Breakdown[] = [];
    for (const [c, n] of LEVELS) {
      const before = await stageTotals(app);
      const cpu0 = await cpuMs(app, store);
      const row: Row = { store, nodes, transport, ...(await load(app, queries, c, n)) };
      const cpu1 = await cpuMs(app, store);
      row.cpuApp = (cpu1.app - cpu0.app) / row.n;
      if (store === 'postgres') row.cpuStore = storeDelta(cpu0.store, cpu1.store) / row.n;
      rows.push(row);
      breakdowns.push({ label: `${store} ${nodes} c=${c}`, means: stageMeans(before, await stageTotals(app)) });
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
    stages.rssMb = process.resourceUsage().maxRSS / 1024;
    return { rows, stages, breakdowns };
  } finally {
    await app.close();
  }
}

async function main() {
  const rows: Row[] = [];
  const stages: Stages[] = [];
  const breakdowns: Breakdown[] = [];
  for (const store of STORES) {
    for (const nodes of SIZES) {
      for (const t of TRANSPORTS) {
        const r = await run(store, nodes, t);
        rows.push(...r.rows);
        stages.push(r.stages);
        breakdowns.push(...r.breakdowns);
      }
    }
  }
  const f = (x: number) => x.toFixed(1);
  console.log(
    `\n### context benchmark (${new Date().toISOString()}, ${process.platform}, load ${process.env.BENCH_NOTE ?? ''})\n`,
  );
  console.log(
    '| store | memories | transport | concurrency | requests | req/s | p50 ms | p99 ms | errors | p50 ÷ floor | CPU ms/req app / store |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const fl = stages.find((s) => s.store === r.store && s.nodes === r.nodes)!.floor.p50;
    console.log(
      `| ${r.store} | ${r.nodes} | ${r.transport} | ${r.c} | ${r.n} | ${f(r.rps)} | ${f(r.p50)} | ${f(r.p99)} | ${r.errors} | ${(r.p50 / fl).toFixed(2)} | ${f(r.cpuApp ?? 0)} / ${r.cpuStore === undefined ? '–' : f(r.cpuStore)} |`,
    );
  }
  console.log(
    "\nStages at concurrency 1 (p50 / p99 ms): floor = the request's find calls through FindService directly;",
  );
  console.log('find = one /find over HTTP → queue → worker; context = the whole context request.\n');
  console.log('| store | memories | floor | find | context | context ÷ floor | peak RSS MB |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const s of stages) {
    console.log(
      `| ${s.store} | ${s.nodes} | ${f(s.floor.p50)} / ${f(s.floor.p99)} | ${f(s.find.p50)} / ${f(s.find.p99)} | ${f(s.context.p50)} / ${f(s.context.p99)} | ${(s.context.p50 / s.floor.p50).toFixed(2)} | ${s.rssMb.toFixed(0)} |`,
    );
  }
  printBreakdowns(breakdowns);
  process.exit(0);
}

/** One row per stage, one column per load level: mean ms (gateway stages per request, job stages per job). */
function printBreakdowns(breakdowns: Breakdown[]) {
  const stageNames = [...new Set(breakdowns.flatMap((b) => Object.keys(b.means)))];
  console.log('\nStage breakdown under load (mean ms; find_*/assemble_* per job, the rest per request):\n');
  console.log(`| stage | ${breakdowns.map((b) => b.label).join(' | ')} |`);
  console.log(`| --- | ${breakdowns.map(() => '---').join(' | ')} |`);
  for (const stage of stageNames) {
    const cells = breakdowns.map((b) => (b.means[stage] === undefined ? '' : b.means[stage].toFixed(2)));
    console.log(`| ${stage} | ${cells.join(' | ')} |`);
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});

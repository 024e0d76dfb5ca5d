/**
 * `npm run bench:heavy`: what the largest valid context requests cost, on each store of BENCH_STORES (default:
 * PostgreSQL when MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL names a server, in a fresh database;
 * then embedded PGlite). One tenant of BENCH_HEAVY_NODES memories (default 3,000; 150 words each from a
 * 44-word vocabulary, so every query word is in nearly every memory and every request finds as many
 * candidates as it may), written through batch-write; then BENCH_HEAVY_REPS requests (default 5) of each case:
 * the default request, `limit` 1,000 at 32,000 tokens (with `explain`, `detail: full`, `dedup_turns`), the six
 * quota buckets at 1,000 each, and an MCP batch of 16 context searches. Then a second tenant of BENCH_HEAVY_BIG
 * memories (default 300) of BENCH_HEAVY_BIG_KB KB each (default 200): the default request, `limit` 1,000 at
 * 32,000 tokens (plain and pinned to `overview`) and a `/recall` at the largest `max_chars`, whose bodies together
 * are more than a plan works over (docs/limits-and-security.md, "Work per byte"). Printed per case: p50 and max latency,
 * the answer's size, and the mean time per stage from `/metrics` (docs/architecture.md, "Stage timings"): the
 * assembler's plan is CPU (docs/context.md, "Planning cost"), on a worker thread from MUNINN_ASSEMBLE_THREAD_CHARS of
 * input, whose hop (waiting for the thread, the copies there and back) is `assemble_plan_thread`
 * (docs/limits-and-security.md, "Large plans on worker threads"). Then the PostgreSQL ÷ PGlite ratio of each case's
 * p50.
 */
import { performance } from 'node:perf_hooks';
import { startTestApp, TestApp } from '@app/testing';
import { ALL_BUCKETS, generator, KINDS, memoryText, query, WORDS } from './heavy-corpus';

const NODES = Number(process.env.BENCH_HEAVY_NODES ?? 3000);
const REPS = Number(process.env.BENCH_HEAVY_REPS ?? 5);
const BIG = Number(process.env.BENCH_HEAVY_BIG ?? 300);
const BIG_KB = Number(process.env.BENCH_HEAVY_BIG_KB ?? 200);
const BIG_HEADERS = { 'X-OpenViking-Account': 'heavy-big', 'X-OpenViking-User': 'u1' };
const PG_URL = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
const STORES = (process.env.BENCH_STORES ?? (PG_URL ? 'postgres,pglite' : 'pglite')).split(',') as (
  'postgres' | 'pglite'
)[];
const HEADERS = { 'X-OpenViking-Account': 'heavy', 'X-OpenViking-User': 'u1' };
const ROOT = 'viking://user/u1/memories';
const STAGES = [
  'find_sql',
  'find_return',
  'assemble_queue_wait',
  'assemble_body_read',
  'assemble_plan',
  'assemble_plan_thread',
  'assemble_return',
  'total',
];
const CASES: [string, Record<string, unknown>][] = [
  ['default request', {}],
  ['limit 1000, 32k tokens', { max_tokens: 32000, limit: 1000 }],
  ['limit 1000, 32k, explain', { max_tokens: 32000, limit: 1000, explain: true }],
  ['limit 1000, 32k, full, dedup 100', { max_tokens: 32000, limit: 1000, detail: 'full', dedup_turns: 100 }],
  ['quotas 6 x 1000, 32k, explain', { max_tokens: 32000, quotas: ALL_BUCKETS, explain: true }],
];

/**
 * Writes `count` files (`file(k)` gives the k-th, path under ROOT and content) through batch-write, `perBatch` a
 * request, as `headers`' tenant.
 */
async function seedFiles(
  app: TestApp,
  headers: Record<string, string>,
  count: number,
  perBatch: number,
  file: (k: number) => { path: string; content: string },
): Promise<void> {
  for (let i = 0; i < count; i += perBatch) {
    const operations = Array.from({ length: Math.min(perBatch, count - i) }, (_, j) => {
      const { path, content } = file(i + j);
      return { uri: `${ROOT}/${path}`, content, mode: 'create' };
    });
    const r = await app.request('POST', '/api/v1/content/batch-write', {
      headers,
      body: { root_uri: ROOT, operations, wait: true, timeout: 600 },
    });
    if (r.status !== 200) throw new Error(`batch-write: ${r.status} ${r.text.slice(0, 300)}`);
  }
}

/** NODES memories of 150 vocabulary words each. */
function seed(app: TestApp): Promise<void> {
  const next = generator(7);
  return seedFiles(app, HEADERS, NODES, 200, (k) => ({
    path: `${KINDS[k % 4]}/m${k}.md`,
    content: memoryText(next, k),
  }));
}

/** BIG memories of BIG_KB KB each: lines of the vocabulary, so every query word is on most lines. */
function seedBig(app: TestApp): Promise<void> {
  const next = generator(11);
  return seedFiles(app, BIG_HEADERS, BIG, Math.max(1, Math.floor(8000 / BIG_KB)), (k) => {
    const lines: string[] = [];
    for (let len = 0; len < BIG_KB * 1024;) {
      const line = `${Array.from({ length: 12 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ')}.`;
      lines.push(line);
      len += line.length + 1;
    }
    return { path: `events/big${k}.md`, content: lines.join('\n') };
  });
}

const BIG_CASES: [string, string, Record<string, unknown>][] = [
  ['large bodies: default request', '/api/v1/search/search', { mode: 'context' }],
  ['large bodies: limit 1000, 32k', '/api/v1/search/search', { mode: 'context', max_tokens: 32000, limit: 1000 }],
  [
    'large bodies: limit 1000, 32k, overview',
    '/api/v1/search/search',
    { mode: 'context', max_tokens: 32000, limit: 1000, detail: 'overview' },
  ],
  ['large bodies: /recall, max_chars 128000', '/api/v1/search/recall', { max_chars: 128000, quotas: { events: 1000 } }],
];

async function stageSums(app: TestApp): Promise<Map<string, number>> {
  const r = await app.request('GET', '/metrics', {});
  const sums = new Map<string, number>();
  for (const line of r.text.split('\n')) {
    const m = /^muninn_context_stage_duration_seconds_sum\{stage="([a-z_]+)"\} (\S+)$/.exec(line);
    if (m) sums.set(m[1], Number(m[2]));
  }
  return sums;
}

async function mcpBatch(app: TestApp, k: number): Promise<{ status: number; bytes: number }> {
  const batch = Array.from({ length: 16 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: { name: 'search', arguments: { query: query(k + i), mode: 'context' } },
  }));
  const r = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...HEADERS },
    body: JSON.stringify(batch),
  });
  return { status: r.status, bytes: (await r.text()).length };
}

type Send = (k: number) => Promise<{ status: number; bytes: number }>;

interface CaseFigures {
  p50: number;
  max: number;
  bytes: number;
  statuses: Set<number>;
  stages: Map<string, number>;
}

async function runCase(app: TestApp, send: Send, calls: number): Promise<CaseFigures> {
  const before = await stageSums(app);
  const times: number[] = [];
  const out: CaseFigures = { p50: 0, max: 0, bytes: 0, statuses: new Set(), stages: new Map() };
  for (let k = 0; k < REPS; k++) {
    const t0 = performance.now();
    const { status, bytes } = await send(k);
    times.push(performance.now() - t0);
    out.statuses.add(status);
    out.bytes = bytes;
  }
  const after = await stageSums(app);
  for (const s of STAGES) out.stages.set(s, (((after.get(s) ?? 0) - (before.get(s) ?? 0)) * 1000) / (REPS * calls));
  times.sort((a, b) => a - b);
  out.p50 = times[Math.floor(times.length / 2)];
  out.max = times[times.length - 1];
  return out;
}

async function runStore(store: 'postgres' | 'pglite'): Promise<Map<string, CaseFigures>> {
  // MUNINN_ASSEMBLE_THREADS=0 in the bench's environment plans every block on the loop, for comparison.
  const threads = process.env.MUNINN_ASSEMBLE_THREADS;
  const env = { MUNINN_STATEMENT_TIMEOUT_MS: '600000', ...(threads ? { MUNINN_ASSEMBLE_THREADS: threads } : {}) };
  const app = await startTestApp({ store, env });
  const results = new Map<string, CaseFigures>();
  try {
    const t0 = performance.now();
    await seed(app);
    console.log(`\n[${store}] seeded ${NODES} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    for (let k = 0; k < 3; k++)
      await app.request('POST', '/api/v1/search/search', {
        headers: HEADERS,
        body: { query: query(k), mode: 'context' },
      }); // warm-up
    const sends: [string, Send, number][] = CASES.map(([name, extra]) => [
      name,
      async (k) => {
        const body = {
          query: query(k),
          mode: 'context',
          ...(extra.dedup_turns ? { session_id: `s${k}` } : {}),
          ...extra,
        };
        const r = await app.request('POST', '/api/v1/search/search', { headers: HEADERS, body });
        return { status: r.status, bytes: r.text.length };
      },
      1,
    ]);
    sends.push(['MCP batch of 16 searches', (k) => mcpBatch(app, k), 16]);
    const t1 = performance.now();
    await seedBig(app);
    console.log(
      `[${store}] seeded ${BIG} memories of ${BIG_KB} KB in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
    );
    for (const [name, path, extra] of BIG_CASES)
      sends.push([
        name,
        async (k) => {
          const body = { query: query(k), ...extra };
          const r = await app.request('POST', path, { headers: BIG_HEADERS, body });
          return { status: r.status, bytes: r.text.length };
        },
        1,
      ]);
    console.log(`| case | status | bytes | p50 ms | max ms | ${STAGES.join(' | ')} (mean ms per context request) |`);
    console.log(`|---|---|---|---|---|${STAGES.map(() => '---').join('|')}|`);
    for (const [name, send, calls] of sends) {
      const f = await runCase(app, send, calls);
      results.set(name, f);
      const stages = STAGES.map((s) => f.stages.get(s)!.toFixed(0)).join(' | ');
      console.log(
        `| ${name} | ${[...f.statuses].join(',')} | ${f.bytes} | ${f.p50.toFixed(0)} | ${f.max.toFixed(0)} | ${stages} |`,
      );
    }
  } finally {
    await app.close();
  }
  return results;
}

async function main(): Promise<void> {
  const byStore = new Map<string, Map<string, CaseFigures>>();
  for (const store of STORES) byStore.set(store, await runStore(store));
  const pg = byStore.get('postgres');
  const lite = byStore.get('pglite');
  if (pg && lite) {
    console.log('\np50 PostgreSQL ÷ PGlite, same run:');
    for (const [name, f] of pg) console.log(`  ${name}: ${(f.p50 / lite.get(name)!.p50).toFixed(2)}`);
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

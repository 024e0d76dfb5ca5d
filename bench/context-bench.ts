/**
 * `npm run bench:context`: one tenant with 10k memory files (2/3 English, 1/3 Chinese), then
 * mode="context" requests over HTTP at concurrency 1, 16 and 64, through the BullMQ path and the
 * in-process transport in the same run, with the ratio between them. Store: the PostgreSQL server
 * at MUNINN_BENCH_DATABASE_URL when set (a fresh database is created), else embedded PGlite.
 */
import { performance } from 'node:perf_hooks';
import { EMBEDDER, Embedder } from '@app/embed';
import { directorySidecars, fileAbstract, searchText } from '@app/kernel';
import { bulkInsertIndexed, Db, IndexedNodeInput, STORE_DB } from '@app/store';
import { createTestDatabase, startTestApp, TestApp } from '@app/testing';
import { MEMORY_KINDS, syntheticFile } from './find-corpus';

const N = Number(process.env.BENCH_NODES ?? 10_000);
// BENCH_LEVELS="1:100,16:480" picks concurrency:requests pairs; BENCH_TRANSPORTS="bullmq" one transport.
const LEVELS: [number, number][] = (process.env.BENCH_LEVELS ?? '1:100,16:480,64:960').split(',').map((p) => p.split(':').map(Number) as [number, number]);
const USER = 'default';

interface Row { transport: string; c: number; n: number; rps: number; p50: number; p99: number; errors: number }

async function seed(app: TestApp): Promise<string[]> {
  const db = app.nest.get<Db>(STORE_DB);
  const embedder = app.nest.get<Embedder>(EMBEDDER);
  const queries: string[] = [];
  for (let start = 0; start < N; start += 500) {
    const files = Array.from({ length: Math.min(500, N - start) }, (_, i) => syntheticFile(7, start + i, USER, Math.max(200, N / 4)));
    const abstracts = files.map((f) => fileAbstract(f.uri, f.content));
    const vectors = await embedder.embed(abstracts.map((a, i) => `${files[i].uri.slice(files[i].uri.lastIndexOf('/') + 1)}\n${a}`));
    const nodes: IndexedNodeInput[] = files.map((f, i) => ({ uri: f.uri, kind: 'file', content: f.content, abstract: abstracts[i], searchText: searchText(abstracts[i]), embedding: vectors[i] }));
    await bulkInsertIndexed(db, 'default', nodes, embedder.id);
    queries.push(...files.filter((_, i) => i % 10 === 0).map((f) => f.query));
  }
  const dirs: IndexedNodeInput[] = [`viking://user/${USER}`, `viking://user/${USER}/memories`].map((uri) => ({ uri, kind: 'directory', content: '', abstract: '', searchText: '', embedding: null }));
  for (const k of MEMORY_KINDS) {
    const uri = `viking://user/${USER}/memories/${k}`;
    const side = directorySidecars(uri, []);
    dirs.push({ uri, kind: 'directory', content: '', abstract: side.abstract, overview: side.overview, searchText: searchText(side.abstract), embedding: null });
  }
  await bulkInsertIndexed(db, 'default', dirs, embedder.id);
  return queries;
}

async function load(app: TestApp, queries: string[], c: number, n: number, transport: string): Promise<Row> {
  const lat: number[] = [];
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, async () => {
    while (next < n) {
      const q = queries[next++ % queries.length];
      const s = performance.now();
      const r = await app.request('POST', '/api/v1/search/search', { body: { query: q, mode: 'context' } });
      lat.push(performance.now() - s);
      if (r.status !== 200 || r.body?.result?.stats?.retrieval_errors) errors++;
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return { transport, c, n, rps: n / secs, p50: pct(0.5), p99: pct(0.99), errors };
}

async function run(transport: 'bullmq' | 'inprocess'): Promise<Row[]> {
  const base = process.env.MUNINN_BENCH_DATABASE_URL;
  const db = base ? await createTestDatabase(base) : null;
  const app = await startTestApp({ env: { MUNINN_TRANSPORT: transport, MUNINN_WORKER_CONCURRENCY: '16', MUNINN_STATEMENT_TIMEOUT_MS: '600000', ...(db ? { DATABASE_URL: db.url } : {}) } });
  try {
    const t0 = performance.now();
    const queries = await seed(app);
    console.log(`[${transport}] seeded ${N} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s (${db ? 'PostgreSQL' : 'PGlite'})`);
    for (let i = 0; i < 20; i++) await app.request('POST', '/api/v1/search/search', { body: { query: queries[i], mode: 'context' } });
    const rows: Row[] = [];
    for (const [c, n] of LEVELS) rows.push(await load(app, queries, c, n, transport));
    return rows;
  } finally {
    await app.close();
    await db?.drop();
  }
}

async function main() {
  const transports = (process.env.BENCH_TRANSPORTS ?? 'bullmq,inprocess').split(',') as ('bullmq' | 'inprocess')[];
  const rows: Row[] = [];
  for (const t of transports) rows.push(...(await run(t)));
  console.log('\ntransport   conc  requests    req/s    p50 ms    p99 ms  errors');
  for (const r of rows) {
    console.log(`${r.transport.padEnd(10)} ${String(r.c).padStart(5)} ${String(r.n).padStart(9)} ${r.rps.toFixed(1).padStart(8)} ${r.p50.toFixed(1).padStart(9)} ${r.p99.toFixed(1).padStart(9)} ${String(r.errors).padStart(7)}`);
  }
  console.log('\nqueued / in-process (same run):');
  for (const [c] of LEVELS) {
    const q = rows.find((r) => r.transport === 'bullmq' && r.c === c);
    const p = rows.find((r) => r.transport === 'inprocess' && r.c === c);
    if (!q || !p) continue;
    console.log(`  c=${c}: p50 ×${(q.p50 / p.p50).toFixed(2)}, p99 ×${(q.p99 / p.p99).toFixed(2)}, req/s ×${(q.rps / p.rps).toFixed(2)}`);
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * `npm run bench:find`: seeds synthetic tenants (English + Chinese memory files) of 1k, 10k and 100k
 * nodes straight through the indexing functions and batched store inserts, then measures `find`
 * latency through the full HTTP → BullMQ → retriever path and directly against the store, plus index
 * throughput (bulk, and per-node jobs through the real worker). PostgreSQL (DATABASE_URL, default
 * postgres://root@127.0.0.1:5432/test: a throw-away muninn_test_* database is created on that server)
 * and Redis (REDIS_URL, default redis://127.0.0.1:6379) are required.
 *   npm run bench:find [-- --tiers 1000,10000,100000] [--queries 200]
 *   npm run bench:find -- --eval        retrieval quality on LoCoMo + the Chinese set (bench/find-eval.ts)
 */
import { HashingEmbedder } from '@app/embed';
import { directorySidecars, Identity, searchText } from '@app/kernel';
import {
  bulkInsertIndexed,
  ensureVectorIndex,
  IndexedNodeInput,
  NodeSearchQuery,
  NodeSearchRepository,
  PgDb,
} from '@app/store';
import { startTestApp, TestApp } from '@app/testing';
import { queryTerms } from '../apps/retriever/src/find/query-terms';
import { MEMORY_KINDS, syntheticFile } from './find-corpus';
import { indexFiles, percentile } from './find-data';
import { buildSearchSql } from '../libs/store/src/repositories/node-search.repository';
import { TermStats } from '../libs/store/src/repositories/node-search-term-stats';
import { runEval } from './find-eval';
import { misspell } from './locomo-typos';

const ROOT = 'bench-root-key-0123456789abcdef';
const BATCH = 1000;

interface TierResult {
  nodes: number;
  seedS: number;
  computePerS: number;
  insertPerS: number;
  store: { p50: number; p99: number };
  /** The same searches given an abort signal: the cancellable path (own pooled client, its server process known). */
  cancellable: { p50: number; p99: number };
  /** The same searches with half their words of 5+ letters misspelt: the variants' lookup (docs/context.md). */
  misspelt: { p50: number; p99: number };
  /** Share of the misspelt searches that still find their file in the top 10 (with all words spelt right: selfRecall10). */
  misspeltRecall10: number;
  http: { p50: number; p99: number };
  selfRecall10: number;
}

async function main(): Promise<void> {
  const args = parseArgs();
  if (args.has('eval')) return runEval(args);
  const tiers = (args.get('tiers') ?? '1000,10000,100000').split(',').map(Number);
  const nQueries = Number(args.get('queries') ?? 200);
  process.env.MUNINN_TEST_DATABASE_URL ??= process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  const app = await startTestApp({
    store: 'postgres',
    rootApiKey: ROOT,
    env: { MUNINN_REQUEST_DEADLINE_MS: '30000', MUNINN_STATEMENT_TIMEOUT_MS: '600000' },
  });
  let db = new PgDb(app.config.store.databaseUrl!, 4);
  const embedder = new HashingEmbedder();
  const results: TierResult[] = [];
  try {
    // Bulk loads go in without the HNSW index and build it once afterwards (pgvector's advice, and ~10x
    // faster than maintaining it row by row); the per-node worker path below runs with it in place.
    await db.exec(`DROP INDEX IF EXISTS nodes_embedding_hnsw_${embedder.dim}`);
    const tenants: {
      account: string;
      key: string;
      nodes: number;
      seedNo: number;
      seeded: Awaited<ReturnType<typeof seed>>;
    }[] = [];
    for (const [t, nodes] of tiers.entries()) {
      const account = `bench${t}`;
      const key = await tenantKey(app, account);
      tenants.push({ account, key, nodes, seedNo: t + 1, seeded: await seed(db, embedder, account, nodes, t + 1) });
      console.log(`seeded ${nodes} nodes in ${tenants[t].seeded.seedS.toFixed(1)} s`);
    }
    // The build is several times slower once the graph outgrows maintenance_work_mem (64 MB by default);
    // the setting applies to new sessions of this throw-away database only.
    await db.exec(
      `ALTER DATABASE "${new URL(app.config.store.databaseUrl!).pathname.slice(1)}" SET maintenance_work_mem = '1GB'`,
    );
    await db.close();
    db = new PgDb(app.config.store.databaseUrl!, 4);
    const b0 = performance.now();
    await ensureVectorIndex(db, embedder.dim);
    const hnswS = (performance.now() - b0) / 1000;
    await db.exec('VACUUM ANALYZE nodes');
    const total = tenants.reduce((s, x) => s + x.nodes, 0);
    for (const { account, key, nodes, seedNo, seeded } of tenants) {
      const files = Array.from({ length: nQueries }, (_, i) =>
        syntheticFile(seedNo, Math.floor((i * 7919) % nodes), 'u', rareCount(nodes)),
      );
      const identity: Identity = { accountId: account, userId: 'u', role: 'user', actorPeerId: null };
      const search = new NodeSearchRepository(db);
      const storeMs: number[] = [];
      const cancellableMs: number[] = [];
      const misspeltMs: number[] = [];
      let found = 0;
      let foundMisspelt = 0;
      // Each query twice, plain and with a signal (as a find job's search runs), in alternating order.
      for (const [i, f] of files.entries()) {
        for (const withSignal of i % 2 ? [true, false] : [false, true]) {
          const t0 = performance.now();
          const [values] = await embedder.embed([f.query]);
          const query = userQuery(identity, { values, embedderId: embedder.id }, queryTerms(f.query));
          const hits = await search.search(query, undefined, withSignal ? new AbortController().signal : undefined);
          (withSignal ? cancellableMs : storeMs).push(performance.now() - t0);
          if (!withSignal && hits.some((h) => h.uri === f.uri)) found++;
        }
      }
      // Then misspelt, after every plain search: its words' frequencies are cached as a find's would be.
      for (const [i, f] of files.entries()) {
        const text = misspell(f.query, 0.5, `find${i}`);
        const t0 = performance.now();
        const [values] = await embedder.embed([text]);
        const hits = await search.search(userQuery(identity, { values, embedderId: embedder.id }, queryTerms(text)));
        misspeltMs.push(performance.now() - t0);
        if (hits.some((h) => h.uri === f.uri)) foundMisspelt++;
      }
      if (process.env.BENCH_EXPLAIN)
        await explain(
          db,
          identity,
          embedder,
          files.slice(0, Number(process.env.BENCH_EXPLAIN)).map((f) => f.query),
        );
      const httpMs: number[] = [];
      for (const f of files) {
        const t0 = performance.now();
        const r = await app.request('POST', '/api/v1/search/find', { key, body: { query: f.query, limit: 10 } });
        httpMs.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`find answered ${r.status}: ${r.text.slice(0, 300)}`);
      }
      const row = {
        nodes,
        ...seeded,
        store: stats(storeMs),
        cancellable: stats(cancellableMs),
        misspelt: stats(misspeltMs),
        misspeltRecall10: foundMisspelt / files.length,
        http: stats(httpMs),
        selfRecall10: found / files.length,
      };
      results.push(row);
      console.log(JSON.stringify(row));
    }
    const worker = await workerThroughput(app, tenants[0].key);
    console.log(
      `\n### find benchmark (${new Date().toISOString().slice(0, 10)}, ${process.platform}, PostgreSQL, ${nQueries} queries per tier, 2/3 English, 1/3 Chinese)\n`,
    );
    console.log(
      '| nodes | seed s | index compute nodes/s | insert nodes/s | store p50 / p99 ms | with a cancel signal p50 / p99 ms (÷ p50) | misspelt p50 / p99 ms (÷ p50) | HTTP→queue→worker p50 / p99 ms | self-recall@10 (misspelt) |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of results) {
      const ratio = r.cancellable.p50 / r.store.p50;
      const typo = r.misspelt.p50 / r.store.p50;
      console.log(
        `| ${r.nodes} | ${r.seedS.toFixed(1)} | ${r.computePerS.toFixed(0)} | ${r.insertPerS.toFixed(0)} | ${r.store.p50.toFixed(1)} / ${r.store.p99.toFixed(1)} | ${r.cancellable.p50.toFixed(1)} / ${r.cancellable.p99.toFixed(1)} (${ratio.toFixed(2)}) | ${r.misspelt.p50.toFixed(1)} / ${r.misspelt.p99.toFixed(1)} (${typo.toFixed(2)}) | ${r.http.p50.toFixed(1)} / ${r.http.p99.toFixed(1)} | ${(r.selfRecall10 * 100).toFixed(1)}% (${(r.misspeltRecall10 * 100).toFixed(1)}%) |`,
      );
    }
    console.log(
      `\nHNSW index (m 16, ef_construction 64, 512-d) built over all ${total} nodes in ${hnswS.toFixed(1)} s after the bulk load.`,
    );
    console.log(worker);
  } finally {
    await db.close();
    await app.close();
  }
}

/** The bench's search: the user's space and the resources, top 10, no filter. */
function userQuery(identity: Identity, vector: NodeSearchQuery['vector'], terms: string[]): NodeSearchQuery {
  return {
    identity,
    targets: ['viking://user/u', 'viking://resources'],
    filter: null,
    levels: null,
    limit: 10,
    scoreThreshold: null,
    vector,
    terms,
  };
}

/** Writes `n` memory files plus their directories (with sidecars), in batches; returns the rates. */
async function seed(db: PgDb, embedder: HashingEmbedder, account: string, n: number, seedNo: number) {
  let computeMs = 0;
  let insertMs = 0;
  const t0 = performance.now();
  for (let start = 0; start < n; start += BATCH) {
    const files = Array.from({ length: Math.min(BATCH, n - start) }, (_, i) =>
      syntheticFile(seedNo, start + i, 'u', rareCount(n)),
    );
    const c0 = performance.now();
    const nodes = await indexFiles(embedder, files);
    computeMs += performance.now() - c0;
    const i0 = performance.now();
    await bulkInsertIndexed(db, account, nodes, embedder.id);
    insertMs += performance.now() - i0;
  }
  // Directories last, as the indexer would after their children: sidecars from the first 500 children.
  const dirs: IndexedNodeInput[] = [];
  for (const dir of ['viking://user/u/memories', ...MEMORY_KINDS.map((k) => `viking://user/u/memories/${k}`)]) {
    const { rows } = await db.query<{ uri: string; kind: 'file' | 'directory'; abstract: string }>(
      'SELECT uri, kind, abstract FROM nodes WHERE account_id = $1 AND parent_uri = $2 ORDER BY uri LIMIT 500',
      [account, dir],
    );
    const side = directorySidecars(
      dir,
      dir.endsWith('/memories')
        ? MEMORY_KINDS.map((k) => ({ uri: `${dir}/${k}`, kind: 'directory' as const, abstract: k }))
        : rows,
    );
    const [embedding] = await embedder.embed([
      `${dir.slice(dir.lastIndexOf('/') + 1)}\n${side.abstract}\n${side.overview}`,
    ]);
    dirs.push({
      uri: dir,
      kind: 'directory',
      content: '',
      abstract: side.abstract,
      overview: side.overview,
      searchText: searchText(side.abstract, side.overview),
      embedding,
    });
  }
  dirs.push({ uri: 'viking://user/u', kind: 'directory', content: '', abstract: '', searchText: '', embedding: null });
  await bulkInsertIndexed(db, account, dirs, embedder.id);
  return {
    seedS: (performance.now() - t0) / 1000,
    computePerS: (n / computeMs) * 1000,
    insertPerS: (n / insertMs) * 1000,
  };
}

/** Per-node index jobs through the real path: HTTP batch writes with `wait`, BullMQ, IndexService. */
async function workerThroughput(app: TestApp, key: string): Promise<string> {
  const perBatch = 256;
  const batches = 4;
  const t0 = performance.now();
  for (let b = 0; b < batches; b++) {
    const operations = Array.from({ length: perBatch }, (_, i) => {
      const f = syntheticFile(99, b * perBatch + i, 'u', 5000);
      return { uri: `viking://user/u/memories/worker/w${b}-${i}.md`, content: f.content, mode: 'create' };
    });
    const r = await app.request('POST', '/api/v1/content/batch-write', {
      key,
      body: { root_uri: 'viking://user/u/memories/worker', operations, wait: true, timeout: 600 },
    });
    if (r.status !== 200 || r.body.result.semantic_status !== 'complete')
      throw new Error(`batch-write answered ${r.status}: ${r.text.slice(0, 300)}`);
  }
  const s = (performance.now() - t0) / 1000;
  return `worker path: ${perBatch * batches} files written over HTTP and indexed by \`index\` jobs (embedding, lexical text, parent sidecars) in ${s.toFixed(1)} s = ${((perBatch * batches) / s).toFixed(0)} nodes/s`;
}

async function tenantKey(app: TestApp, account: string): Promise<string> {
  const acct = await app.request('POST', '/api/v1/admin/accounts', {
    key: ROOT,
    body: { account_id: account, admin_user_id: 'admin' },
  });
  const user = await app.request('POST', `/api/v1/admin/accounts/${account}/users`, {
    key: acct.body.result.user_key,
    body: { user_id: 'u', role: 'user' },
  });
  if (user.status !== 200) throw new Error(`could not create the bench user: ${user.text}`);
  return user.body.result.user_key;
}

/** Tail size of the vocabulary: grows with the tenant, as real vocabularies do. */
function rareCount(nodes: number): number {
  return Math.max(2000, Math.round(nodes / 2));
}

function stats(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

function parseArgs(): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i++) {
    const key = process.argv[i].replace(/^--/, '');
    const next = process.argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) args.set(key, process.argv[++i]);
    else args.set(key, 'true');
  }
  return args;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

/** BENCH_EXPLAIN=n: the plan and timing of the find statement for the first n queries (analysis aid). */
async function explain(db: PgDb, identity: Identity, embedder: HashingEmbedder, queries: string[]): Promise<void> {
  for (const query of queries) {
    const [values] = await embedder.embed([query]);
    const terms = queryTerms(query);
    const w0 = performance.now();
    const weights = await new TermStats().weigh(db, identity, terms);
    console.log(
      `weigh ${terms.length} terms (cold cache): ${(performance.now() - w0).toFixed(1)} ms; df ${weights.map((w) => w.df).join(',')}`,
    );
    const plan = buildSearchSql(userQuery(identity, { values, embedderId: embedder.id }, terms), {
      k: 40,
      vector: { values, embedderId: embedder.id },
      weights,
      now: new Date(),
    })!;
    const out = await db.transaction(async (tx) => {
      await tx.query(
        `SELECT set_config('hnsw.ef_search', '40', true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('jit', 'off', true)`,
      );
      const m0 = performance.now();
      await tx.query(plan.sql, plan.params);
      console.log(`main statement: ${(performance.now() - m0).toFixed(1)} ms`);
      return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${plan.sql}`, plan.params);
    });
    // BENCH_EXPLAIN_FULL=1 prints the whole plan, not just its timing line.
    const lines = process.env.BENCH_EXPLAIN_FULL ? out.rows : out.rows.slice(-1);
    console.log(`--- ${query}:\n${lines.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}

/**
 * `npm run bench:fair`: how long another tenant's write takes to become searchable while one tenant
 * floods the index queue, with the fair order off (`MUNINN_FAIR_WINDOW_MS=0`, first in, first out) and
 * on (the default), on embedded PGlite and on PostgreSQL (MUNINN_BENCH_DATABASE_URL, else
 * MUNINN_TEST_DATABASE_URL; skipped when neither is set), each run on a fresh standalone process
 * (`dist/`, api_key mode, default limits).
 *
 * Indexing is made the bottleneck the way a hosted deployment meets it: embeddings come from a provider
 * stand-in (an OpenAI-compatible `/embeddings` server in this process) answering after
 * BENCH_FAIR_EMBED_MS (default 300, a remote API under load). Tenant A (4 users, 2 connections each)
 * sends single writes (`wait:false`) as fast as its rate limits allow for BENCH_FAIR_SECONDS (default
 * 20). From the second second, tenant B writes one file, polls `find` every 100 ms until it is a hit,
 * rests 500 ms and writes the next. Printed per store: A's writes acknowledged, B's write-to-searchable p50 / p95 / max,
 * and the ratio of B's p50 without and with the fair order. The first two runs leave A's backlog
 * unbounded (`MUNINN_ACCOUNT_MAX_PENDING_INDEX=0`); a third runs the fair order with the backlog bound
 * (BENCH_FAIR_BACKLOG, default 1000), A honouring its `Retry-After`. Each run also prints the index
 * queue's peak depth (jobs waiting, sampled every 250 ms) and the writes refused for A's backlog.
 * docs/limits-and-security.md "Fair background queues" and "Backlog bounds".
 * `BENCH_FAIR_MODE=extract` measures the extract queue instead (bench/fair-extract.ts); `BENCH_FAIR_MODE=removal`
 * another tenant's writes while one removes a large user (bench/fair-removal.ts).
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { QueueName } from '@app/contracts';
import { api, deploy, peakQueue, pct, sleep, Store } from './fair-support';
import { extractScenario } from './fair-extract';
import { removalScenario } from './fair-removal';

const SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 20);
const EMBED_MS = Number(process.env.BENCH_FAIR_EMBED_MS ?? 300);
const BACKLOG = Number(process.env.BENCH_FAIR_BACKLOG ?? 1000);
const DIM = 64;
const A_USERS = 4;
const A_CONNECTIONS_PER_USER = 2;

/**
 * Tenant A's flood: new single files until the deadline, 2 connections per key; returns the writes
 * acknowledged and those refused for A's index backlog (after which A waits its `Retry-After`).
 */
async function floodA(url: string, keys: string[], until: number): Promise<{ acked: number; heldBack: number }> {
  let acked = 0;
  let heldBack = 0;
  let next = 0;
  await Promise.all(
    keys.flatMap((key) =>
      Array.from({ length: A_CONNECTIONS_PER_USER }, async () => {
        while (Date.now() < until) {
          const i = next++;
          const r = await api(url, '/api/v1/content/write', key, {
            uri: `viking://resources/flood/n${i}.md`,
            content: `Flood note ${i}: copper lantern meadow report.`,
            mode: 'create',
          });
          if (r.status === 200) acked++;
          else if (r.body?.error?.details?.limit === 'index_backlog') {
            heldBack++;
            await sleep(1000 * (r.body.error.details.retry_after_s ?? 1));
          } else await sleep(100); // a 429: the flood is at its rate limit
        }
      }),
    ),
  );
  return { acked, heldBack };
}

/** An OpenAI-compatible `/embeddings` provider that answers after EMBED_MS (vectors from the text's characters). */
async function slowEmbeddings() {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const input = (JSON.parse(raw) as { input: string[] | string }).input;
      const texts = Array.isArray(input) ? input : [input];
      const data = texts.map((t, index) => ({
        index,
        embedding: Array.from({ length: DIM }, (_, k) => ((t.charCodeAt(k % Math.max(1, t.length)) || 1) % 13) + 1),
      }));
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data })),
        EMBED_MS,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

/**
 * Tenant B: writes one file, polls `find` every 100 ms until it is a hit, rests 500 ms, and again until
 * the deadline (one poll at a time, so B stays far below its own rate limit).
 */
async function probeB(url: string, key: string, from: number, until: number): Promise<number[]> {
  await sleep(Math.max(0, from - Date.now()));
  const waits: number[] = [];
  for (let i = 0; Date.now() < until; i++) {
    const word = `quillmark${'abcdefghij'[i % 10]}${'klmnopqrst'[Math.floor(i / 10) % 10]}z`;
    const t0 = performance.now();
    const w = await api(url, '/api/v1/content/write', key, {
      uri: `viking://resources/mine/n${i}.md`,
      content: `B's note ${i} about ${word}.`,
      mode: 'create',
    });
    if (w.status !== 200) throw new Error(`B's write: ${w.status} ${JSON.stringify(w.body).slice(0, 200)}`);
    for (;;) {
      const r = await api(url, '/api/v1/search/find', key, { query: word, limit: 3 });
      if (r.status !== 200) throw new Error(`B's find: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      if (r.body.result.resources.some((h: { uri: string }) => h.uri.endsWith(`/n${i}.md`))) break;
      await sleep(100);
    }
    waits.push(performance.now() - t0);
    await sleep(500);
  }
  return waits;
}

async function run(store: Store, fairWindowMs: number, maxPending: number, embeddingsUrl: string, pgBase?: string) {
  const d = await deploy(
    store,
    {
      MUNINN_FAIR_WINDOW_MS: String(fairWindowMs),
      MUNINN_ACCOUNT_MAX_PENDING_INDEX: String(maxPending),
      EMBEDDING_BASE_URL: embeddingsUrl,
      EMBEDDING_MODEL: 'bench-slow',
      EMBEDDING_DIM: String(DIM),
    },
    A_USERS,
    pgBase,
  );
  try {
    const start = Date.now();
    const until = start + SECONDS * 1000;
    const [flood, waits, peak] = await Promise.all([
      floodA(d.url, d.keysA, until),
      probeB(d.url, d.keyB, start + 1000, until),
      peakQueue(QueueName.Index, d.prefix, until),
    ]);
    return { ...flood, waits, peak };
  } finally {
    await d.stop();
  }
}

async function main() {
  console.log('building dist/ (standalone) …');
  execFileSync('npx', ['nest', 'build', 'standalone'], { stdio: 'inherit' });
  const pgBase = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
  const stores = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',') as Store[];
  if (process.env.BENCH_FAIR_MODE === 'extract') return extractScenario(stores, pgBase);
  if (process.env.BENCH_FAIR_MODE === 'removal') return removalScenario(stores, pgBase);
  const rows: string[] = [];
  const embeddings = await slowEmbeddings();
  for (const store of stores) {
    if (store === 'postgres' && !pgBase) {
      console.log('postgres: skipped (no MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL)');
      continue;
    }
    const p50: number[] = [];
    for (const [label, window, maxPending] of [
      ['FIFO (window 0), backlog unbounded', 0, 0],
      ['fair (window 10 s), backlog unbounded', 10_000, 0],
      [`fair, backlog bound ${BACKLOG}`, 10_000, BACKLOG],
    ] as const) {
      const { acked, heldBack, waits, peak } = await run(store, window, maxPending, embeddings.url, pgBase);
      p50.push(pct(waits, 50));
      const f = (x: number) => (x / 1000).toFixed(2);
      rows.push(
        `| ${store} | ${label} | ${acked} | ${heldBack} | ${peak} | ${waits.length} | ${f(pct(waits, 50))} | ${f(pct(waits, 95))} | ${f(Math.max(...waits))} |`,
      );
      console.log(rows[rows.length - 1]);
    }
    rows.push(`| ${store} | ratio FIFO / fair (p50) | | | | | ${(p50[0] / p50[1]).toFixed(1)}× | | |`);
  }
  embeddings.close();
  console.log(
    `\nA: single writes, ${A_USERS} keys × ${A_CONNECTIONS_PER_USER} connections for ${SECONDS} s; B: one write at a time, 500 ms apart; embeddings answer after ${EMBED_MS} ms\n`,
  );
  console.log(
    "| store | order | A's writes acked | A's held back (backlog) | index queue peak | B's writes | B searchable p50 s | p95 s | max s |",
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

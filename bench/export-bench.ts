/**
 * `npm run bench:export`: an account's export (docs/limits-and-security.md, "Exporting an account") on
 * embedded PGlite and on the PostgreSQL server at MUNINN_BENCH_DATABASE_URL (else
 * MUNINN_TEST_DATABASE_URL; skipped when neither is set), each against a freshly built standalone
 * process (`dist/`) in api_key mode.
 *
 * Seeds one account with BENCH_EXPORT_NODES small files (default 10,000, ~300 bytes each, written 250
 * per batch-write with `wait:true`, so indexing is done before the export starts) and BENCH_EXPORT_BIG
 * files of 1 MiB (default 12: three groups of bodies larger than one 4 MiB fetch), then exports it
 * once and prints: seconds, MB/s, lines, time to the first byte, and the process's resident memory
 * (sampled every 20 ms) before and at most during the export: the export holds one page at a time,
 * so its peak should not grow with the account. BENCH_EXPORT_READ_DELAY_MS pauses after each chunk the
 * client reads: a slow client must not make the server buffer the export ahead of it. BENCH_STORES
 * (default "pglite,postgres") picks the stores.
 *
 * Then imports that export back as a new account (docs/limits-and-security.md, "Importing an account")
 * and prints the import's seconds, MB/s and lines/s, and the process's resident memory before and at
 * most during it: the import holds one batch at a time, so its peak should not grow with the export.
 * The import answers once every line is written; the indexer then rebuilds embeddings and summaries.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { BenchStore, benchStores, buildStandalone, startStandalone } from './standalone';

const NODES = Number(process.env.BENCH_EXPORT_NODES ?? 10_000);
const BIG = Number(process.env.BENCH_EXPORT_BIG ?? 12);
/** A pause after each chunk read (ms), to export to a slow client: the server must not buffer ahead. */
const READ_DELAY_MS = Number(process.env.BENCH_EXPORT_READ_DELAY_MS ?? 0);
const ROOT = 'bench-export-root-key-0123456789abcdef';
const BATCH = 250;

interface Timed {
  seconds: number;
  bytes: number;
  lines: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

interface Result {
  store: string;
  imported: Timed;
  seconds: number;
  bytes: number;
  lines: number;
  firstByteMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function call(url: string, path: string, key: string, body: unknown): Promise<any> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  const json = (await r.json()) as any;
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.result;
}

async function seed(url: string): Promise<void> {
  const key = (await call(url, '/api/v1/admin/accounts', ROOT, { account_id: 'exported', admin_user_id: 'boss' }))
    .user_key as string;
  const small = (i: number) =>
    `# Note ${i}\n\nThe lantern by the harbor was copper on day ${i % 365}; follow-up on ticket ${(i * 31) % 9973}.\n`;
  for (let b = 0; b * BATCH < NODES; b++) {
    const operations = Array.from({ length: Math.min(BATCH, NODES - b * BATCH) }, (_, k) => {
      const i = b * BATCH + k;
      return { uri: `viking://resources/bench/n${String(i).padStart(6, '0')}.md`, content: small(i), mode: 'create' };
    });
    await call(url, '/api/v1/content/batch-write', key, {
      root_uri: 'viking://resources/bench',
      wait: true,
      timeout: 300,
      operations,
    });
  }
  const mib = 'x'.repeat(1024 * 1024 - 1) + '\n';
  for (let i = 0; i < BIG; i++) {
    await call(url, '/api/v1/content/write', key, {
      uri: `viking://resources/big/b${i}.md`,
      content: mib,
      mode: 'create',
      wait: true,
      timeout: 300,
    });
  }
}

/** The process's resident memory now, and its peak until `stop()` (sampled every 20 ms). */
function rssWatch(pid: number) {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  return {
    before,
    stop: () => {
      clearInterval(sampler);
      return Math.max(peak, rssMb(pid));
    },
  };
}

async function importOnce(url: string, pid: number, body: Buffer, lines: number): Promise<Timed> {
  const rss = rssWatch(pid);
  const t0 = performance.now();
  const r = await fetch(`${url}/api/v1/admin/accounts/imported/import`, {
    method: 'POST',
    headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
    body,
  });
  const json = (await r.json()) as any;
  const seconds = (performance.now() - t0) / 1000;
  const rssPeakMb = rss.stop();
  if (r.status !== 200) throw new Error(`import: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
  if (json.result.nodes < NODES + BIG) throw new Error(`import wrote ${json.result.nodes} nodes`);
  return { seconds, bytes: body.length, lines, rssBeforeMb: rss.before, rssPeakMb };
}

async function exportOnce(
  url: string,
  pid: number,
  store: string,
): Promise<Omit<Result, 'imported'> & { body: Buffer }> {
  const rss = rssWatch(pid);
  const t0 = performance.now();
  const r = await fetch(`${url}/api/v1/admin/accounts/exported/export`, { headers: { 'x-api-key': ROOT } });
  if (r.status !== 200 || !r.body) throw new Error(`export: ${r.status}`);
  let firstByteMs = 0;
  let bytes = 0;
  let lines = 0;
  let tail = '';
  const decoder = new TextDecoder();
  const chunks: Buffer[] = [];
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByteMs = performance.now() - t0;
    bytes += chunk.byteLength;
    chunks.push(Buffer.from(chunk));
    const text = decoder.decode(chunk, { stream: true });
    for (const c of text) if (c === '\n') lines++;
    tail = (tail + text).slice(-200);
    if (READ_DELAY_MS > 0) await new Promise((r) => setTimeout(r, READ_DELAY_MS));
  }
  const seconds = (performance.now() - t0) / 1000;
  const rssPeakMb = rss.stop();
  if (!tail.includes('"type":"end"')) throw new Error('export ended without its end line');
  const body = Buffer.concat(chunks);
  return { store, seconds, bytes, lines, firstByteMs, rssBeforeMb: rss.before, rssPeakMb, body };
}

async function run(target: { store: BenchStore; pgBase?: string }): Promise<Result> {
  const app = await startStandalone('export', target, { MUNINN_ROOT_API_KEY: ROOT, MUNINN_RATE_LIMIT: 'false' });
  try {
    const t0 = performance.now();
    await seed(app.url);
    const took = ((performance.now() - t0) / 1000).toFixed(0);
    console.log(`${target.store}: seeded ${NODES} + ${BIG} × 1 MiB files in ${took} s`);
    const { body, ...exported } = await exportOnce(app.url, app.pid, target.store);
    return { ...exported, imported: await importOnce(app.url, app.pid, body, exported.lines) };
  } finally {
    await app.stop();
  }
}

async function main() {
  buildStandalone();
  const results: Result[] = [];
  for (const target of benchStores()) results.push(await run(target));
  console.log('\n| store | lines | MB | seconds | MB/s | first byte ms | RSS before MB | RSS peak during MB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const mb = r.bytes / 1024 / 1024;
    console.log(
      `| ${r.store} | ${r.lines} | ${mb.toFixed(1)} | ${r.seconds.toFixed(2)} | ${(mb / r.seconds).toFixed(1)} | ` +
        `${r.firstByteMs.toFixed(0)} | ${r.rssBeforeMb.toFixed(0)} | ${r.rssPeakMb.toFixed(0)} |`,
    );
  }
  console.log('\n| store (import) | lines | MB | seconds | MB/s | lines/s | RSS before MB | RSS peak during MB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const { store, imported: i } of results) {
    const mb = i.bytes / 1024 / 1024;
    console.log(
      `| ${store} | ${i.lines} | ${mb.toFixed(1)} | ${i.seconds.toFixed(2)} | ${(mb / i.seconds).toFixed(1)} | ` +
        `${(i.lines / i.seconds).toFixed(0)} | ${i.rssBeforeMb.toFixed(0)} | ${i.rssPeakMb.toFixed(0)} |`,
    );
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});

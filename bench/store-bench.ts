/**
 * `npm run bench:store`: what running PGlite on a worker thread costs per statement, and what it buys.
 * The same data folder layout and queries run on PGlite in the calling thread (the former set-up) and
 * on the worker (PgliteWorkerDb, what the server uses): SELECT 1, a point read, a hybrid search over
 * N synthetic memories, and a write transaction. Then one slow statement runs on each while a timer
 * measures the event loop's worst delay. No server is needed.
 *   npm run bench:store [-- --nodes 2000] [--queries 300] [--worker-first]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder } from '@app/embed';
import { Identity } from '@app/kernel';
import {
  bulkInsertIndexed,
  Db,
  migrate,
  NodeRepository,
  NodeSearchRepository,
  PgliteDb,
  PgliteWorkerDb,
} from '@app/store';
import { queryTerms } from '../apps/retriever/src/find/query-terms';
import { syntheticFile } from './find-corpus';
import { indexFiles, percentile } from './find-data';

const identity: Identity = { accountId: 'bench', userId: 'u', role: 'user', actorPeerId: null };

async function main(): Promise<void> {
  const args = new Map(process.argv.slice(2).map((a, i, all) => [a.replace(/^--/, ''), all[i + 1] ?? '']));
  const modes = ['main thread', 'worker thread'] as const;
  const nodes = Number(args.get('nodes') || 2000);
  const queries = Number(args.get('queries') || 300);
  const embedder = new HashingEmbedder();
  const files = Array.from({ length: nodes }, (_, i) => syntheticFile(7, i, 'u', Math.max(50, nodes / 20)));
  const indexed = await indexFiles(embedder, files);
  const rows: string[] = [];
  // Run order can favour either side on a busy machine: --worker-first swaps it.
  for (const mode of args.has('worker-first') ? [...modes].reverse() : modes) {
    const dir = mkdtempSync(join(tmpdir(), 'muninn-store-bench-'));
    const db: Db =
      mode === 'main thread'
        ? await PgliteDb.open(dir)
        : await PgliteWorkerDb.open(dir, { statementTimeoutMs: 60_000 });
    try {
      await migrate(db);
      await bulkInsertIndexed(db, 'bench', indexed, embedder.id);
      const nodesRepo = new NodeRepository(db);
      const search = new NodeSearchRepository(db);
      const probe = files.slice(0, queries);
      const select1 = await timed(queries * 3, () => db.query('SELECT 1'));
      const get = await timed(queries, (i) => nodesRepo.get(identity, probe[i % probe.length]!.uri));
      const find = await timed(queries, async (i) => {
        const q = probe[i % probe.length]!.query;
        const [values] = await embedder.embed([q]);
        await search.search({
          identity,
          targets: ['viking://user/u'],
          filter: null,
          levels: null,
          limit: 10,
          scoreThreshold: null,
          vector: { values, embedderId: embedder.id },
          terms: queryTerms(q),
        });
      });
      let written = 0;
      const write = await timed(Math.min(queries, 200), () =>
        nodesRepo.write(identity, {
          uri: `viking://user/u/memories/events/w${++written}.md`,
          content: `written ${written}`,
          mode: 'create',
        }),
      );
      const stall = await loopDelayDuring(db);
      rows.push(`| ${mode} | ${select1} | ${get} | ${find} | ${write} | ${stall} |`);
      console.log(rows[rows.length - 1]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\n### embedded store: calling thread vs worker thread (${nodes} memories, ${queries} queries)\n`);
  console.log('p50 / p99 ms per operation; the last column is the worst event-loop delay during a 2 s statement.\n');
  console.log('| PGlite on | SELECT 1 | point read | hybrid search | write transaction | event-loop delay |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<string> {
  for (let i = 0; i < Math.min(20, n); i++) await fn(i); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return `${percentile(ms, 50).toFixed(2)} / ${percentile(ms, 99).toFixed(2)}`;
}

/** Largest gap (ms) between ticks of a 5 ms timer while the store runs a statement of about two seconds. */
async function loopDelayDuring(db: Db): Promise<string> {
  let last = performance.now();
  let worst = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  const t0 = performance.now();
  await db.query('SELECT count(*) FROM generate_series(1, 2000000)');
  const took = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 20)); // let a blocked timer report its gap
  clearInterval(tick);
  return `${worst.toFixed(0)} ms (statement ${took.toFixed(0)} ms)`;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

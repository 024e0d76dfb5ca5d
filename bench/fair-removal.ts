/**
 * `BENCH_FAIR_MODE=removal npm run bench:fair`: how long another tenant's write takes to become searchable
 * while one tenant removes a large user and keeps writing (docs/limits-and-security.md, "Removals and the
 * indexer").
 *
 * Tenant A has a user with BENCH_FAIR_REMOVAL_NODES memories (default 200,000, seeded through the store);
 * its admin removes that user while two other keys of A write single files (`wait:false`, 2 connections
 * each) for as long as the removal runs. From 300 ms in, tenant B writes one file at a time and polls
 * `find` every 100 ms until it is a hit. The process runs with the default workers (16 per queue) and the
 * offline embedder: the removal, not the embedding, is what A's index jobs meet. Printed per store: the
 * removal's duration, A's writes acknowledged meanwhile, the index queue's peak (waiting and delayed), and
 * B's write-to-searchable p50 / max for the writes B made while the removal ran.
 */
import { IndexedNodeInput, bulkInsertIndexed } from '@app/store';
import { QueueName } from '@app/contracts';
import { api, deploy, peakQueue, pct, sleep, Store } from './fair-support';

const NODES = Number(process.env.BENCH_FAIR_REMOVAL_NODES ?? 200_000);
const A_CONNECTIONS_PER_KEY = 2;

/** The removed user's memories, written straight into the store in steps of 2,000. */
async function seedUser(db: Parameters<typeof bulkInsertIndexed>[0]): Promise<void> {
  for (let at = 0; at < NODES; at += 2000) {
    const nodes: IndexedNodeInput[] = Array.from({ length: Math.min(2000, NODES - at) }, (_, k) => {
      const i = at + k;
      const text = `Memory ${i} of the departing agent: ledger entry ${i % 97} about harbour crane ${i % 13}.`;
      return {
        uri: `viking://user/agent1/memories/bulk/b${Math.floor(i / 1000)}/m${i}.md`,
        kind: 'file',
        content: text,
        abstract: text,
        searchText: text.toLowerCase(),
        embedding: null,
      };
    });
    await bulkInsertIndexed(db, 'tenant-a', nodes, null);
  }
}

/** A's other keys write single files until `done()`; the writes acknowledged. */
async function keepWriting(url: string, keys: string[], done: () => boolean): Promise<number> {
  let acked = 0;
  let next = 0;
  await Promise.all(
    keys.flatMap((key) =>
      Array.from({ length: A_CONNECTIONS_PER_KEY }, async () => {
        while (!done()) {
          const i = next++;
          const r = await api(url, '/api/v1/content/write', key, {
            uri: `viking://resources/during/n${i}.md`,
            content: `Note ${i} written during the removal: copper lantern meadow.`,
            mode: 'create',
          });
          if (r.status === 200) acked++;
          else await sleep(100);
        }
      }),
    ),
  );
  return acked;
}

/** B: one write at a time, each polled until searchable; the waits of writes begun before `done()`. */
async function probe(url: string, key: string, done: () => boolean, tag = 'n'): Promise<number[]> {
  await sleep(300);
  const waits: number[] = [];
  for (let i = 0; !done(); i++) {
    const word = `tarnquill${'abcdefghij'[i % 10]}${'klmnopqrst'[Math.floor(i / 10) % 10]}z`;
    const t0 = performance.now();
    const w = await api(url, '/api/v1/content/write', key, {
      uri: `viking://resources/mine/${tag}${i}.md`,
      content: `B's note ${i} about ${word}.`,
      mode: 'create',
    });
    if (w.status !== 200) throw new Error(`B's write: ${w.status} ${JSON.stringify(w.body).slice(0, 200)}`);
    for (;;) {
      const r = await api(url, '/api/v1/search/find', key, { query: word, limit: 3 });
      if (r.status === 200 && r.body.result.resources.some((h: { uri: string }) => h.uri.endsWith(`/${tag}${i}.md`)))
        break;
      await sleep(100);
    }
    waits.push(performance.now() - t0);
  }
  return waits;
}

async function run(store: Store, pgBase?: string) {
  const d = await deploy(store, {}, 3, pgBase, seedUser);
  try {
    // Warm: one note of B's searchable before the removal starts.
    let warm = 0;
    await probe(d.url, d.keyB, () => warm++ > 0, 'warm');
    let removing = true;
    const t0 = performance.now();
    const removal = fetch(`${d.url}/api/v1/admin/accounts/tenant-a/users/agent1`, {
      method: 'DELETE',
      headers: { 'x-api-key': d.keysA[0] },
      signal: AbortSignal.timeout(600_000),
    }).then(async (r) => {
      const ms = performance.now() - t0;
      removing = false;
      if (r.status !== 200) throw new Error(`removal: ${r.status} ${(await r.text()).slice(0, 200)}`);
      return ms;
    });
    const [removalMs, acked, waits, peak] = await Promise.all([
      removal,
      keepWriting(d.url, [d.keysA[0], d.keysA[2]], () => !removing),
      probe(d.url, d.keyB, () => !removing),
      peakQueue(QueueName.Index, d.prefix, Date.now() + 600_000, () => !removing),
    ]);
    return { removalMs, acked, waits, peak };
  } finally {
    await d.stop();
  }
}

export async function removalScenario(stores: Store[], pgBase?: string): Promise<void> {
  const rows: string[] = [];
  for (const store of stores) {
    if (store === 'postgres' && !pgBase) {
      console.log('postgres: skipped (no MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL)');
      continue;
    }
    const { removalMs, acked, waits, peak } = await run(store, pgBase);
    const f = (x: number) => (x / 1000).toFixed(2);
    rows.push(
      `| ${store} | ${f(removalMs)} | ${acked} | ${peak} | ${waits.length} | ${f(pct(waits, 50))} | ${f(Math.max(...waits))} |`,
    );
    console.log(rows[rows.length - 1]);
  }
  console.log(
    `\nA: a user of ${NODES} memories removed while 2 keys × ${A_CONNECTIONS_PER_KEY} connections write single files; B: one write at a time, polled until searchable; 16 workers, offline embedder\n`,
  );
  console.log(
    "| store | removal s | A's writes during it | index queue peak | B's writes during it | B searchable p50 s | max s |",
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

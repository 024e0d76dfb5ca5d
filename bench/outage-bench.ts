/**
 * `npm run bench:outage`: context requests with query expansion while the model provider hangs, with
 * the gateway's model circuit off (`MUNINN_MODEL_BREAKER_FAILURES=0`, as before it existed) and on (the
 * default: 5 failures, 30 s cool-down), on embedded PGlite and on PostgreSQL (MUNINN_BENCH_DATABASE_URL,
 * else MUNINN_TEST_DATABASE_URL; skipped when neither is set), each run on a fresh standalone process
 * (`dist/`, dev mode, default fuses: expansion 5 s).
 *
 * BENCH_OUTAGE_CLIENTS (default 8) clients ask for context in a loop (a session with one message, so
 * expansion runs) for BENCH_OUTAGE_SECONDS (default 20) while the provider stand-in (an
 * OpenAI-protocol server in this process) holds every call for a minute; then it answers at once, and
 * the clients go on until the first request is expanded again (at most 40 s). Printed per run: requests
 * answered during the outage, their p50 / p99, the model calls the provider received, and the seconds
 * from the provider's return to the first expanded request. docs/limits-and-security.md, "A model that
 * stops answering".
 *
 * A second scenario does the same with the embedding provider (an OpenAI-protocol `/embeddings` stand-in
 * holding every call after the seed write): the context requests' query embedding with a 60 s fuse and
 * no circuit (as before: a search waited for the provider until the request's 10 s deadline) against
 * the defaults (3 s fuse, circuit). Printed: requests answered 200 with the memory served, other
 * answers, p50 / p99, the share answered lexically (`stats.lexical_only`), and the provider's requests
 * still open when the outage ends (a search past its fuse aborts its call). A third setting keeps the 3 s
 * fuse with no circuit, so every search asks the provider.
 *
 * A third writes a file a second for BENCH_OUTAGE_SECONDS while the embedding provider answers 503 to every
 * call, with the circuits off and on, and times, per file, how long after its write a `/find` for its one
 * rare word returns it (at most 60 s); it counts the provider's calls meanwhile and times how long after
 * its return the queues are idle (`system/wait`). Before the index job stored a file's words without its
 * vector, no such file was found until the provider answered again (docs/limits-and-security.md, "Writes
 * while it is away").
 *
 * A fourth, `gateways` (bench/outage-gateways.ts, PostgreSQL only), runs the first with several gateways of
 * one deployment, their circuits each its own and shared.
 *
 * A fifth, `tenant` (bench/outage-tenant.ts), runs the first with two tenants, the provider holding the
 * planner calls of one only.
 *
 * BENCH_OUTAGE_SCENARIOS (a comma list of `write`, `embed`, `model`, `gateways`, `tenant`; default all) runs
 * some of them only.
 */
import { createServer, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { fakeEmbeddingBody, FakeLlmServer, startFakeLlmServer } from '@app/testing';
import { benchStores, BenchStore, buildStandalone, startStandalone } from './standalone';
import { GatewaysRow, gatewaysRun, printGateways } from './outage-gateways';
import { printTenant, TenantRow, tenantRun } from './outage-tenant';
import { pct } from './fair-support';

const CLIENTS = Number(process.env.BENCH_OUTAGE_CLIENTS ?? 8);
const SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS ?? 20);
const RECOVERY_MAX_S = 40;

async function call(url: string, path: string, body: unknown) {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: r.status, body: (await r.json()) as any };
}

const ask = (url: string) =>
  call(url, '/api/v1/search/search', {
    mode: 'context',
    query: 'what did we say about the lighthouse?',
    session_id: 'outage',
    query_expansion: 'auto',
    dedup_turns: 0,
  });

interface Row {
  store: BenchStore;
  circuit: string;
  answered: number;
  p50: number;
  p99: number;
  modelCalls: number;
  recoveryS: number;
}

async function run(target: { store: BenchStore; pgBase?: string }, circuit: 'off' | 'on', llm: FakeLlmServer) {
  const app = await startStandalone(`outage-${circuit}`, target, {
    LLM_BASE_URL: llm.url,
    LLM_MODEL: 'bench-model',
    ...(circuit === 'off' ? { MUNINN_MODEL_BREAKER_FAILURES: '0' } : {}),
  });
  try {
    const write = await call(app.url, '/api/v1/content/write', {
      uri: 'viking://user/default/memories/events/lighthouse.md',
      content: 'The lighthouse keeper retires in May; the lamp is to be automated.',
      mode: 'create',
      wait: true,
    });
    if (write.status !== 200) throw new Error(`seed write answered ${write.status}`);
    await call(app.url, '/api/v1/sessions', { session_id: 'outage' });
    await call(app.url, '/api/v1/sessions/outage/messages', { role: 'user', content: 'Tell me about the lighthouse.' });

    llm.reset();
    llm.respondWith({ text: '{"queries": []}', delayMs: 60_000 });
    const latencies: number[] = [];
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < until) {
          const t = Date.now();
          const r = await ask(app.url);
          if (r.status === 200) latencies.push(Date.now() - t);
        }
      }),
    );
    const modelCalls = llm.requests.length;

    llm.respondWith('{"queries": ["lighthouse keeper"]}');
    const back = Date.now();
    let recoveryS = NaN;
    while (Date.now() - back < RECOVERY_MAX_S * 1000) {
      const r = await ask(app.url);
      if (r.body?.result?.stats?.query_expansion === 'used') {
        recoveryS = (Date.now() - back) / 1000;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    const row: Row = {
      store: target.store,
      circuit,
      answered: latencies.length,
      p50: pct(latencies, 50),
      p99: pct(latencies, 99),
      modelCalls,
      recoveryS,
    };
    return row;
  } finally {
    await app.stop();
  }
}

/**
 * An `/embeddings` stand-in that answers at once until `hold()` (then keeps every request open) or `fail()` (503);
 * `open()` counts the held requests whose client has not closed them.
 */
async function startEmbeddings(dim: number) {
  const held: ServerResponse[] = [];
  let holding = false;
  let failing = false;
  let received = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received++;
      if (failing) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
      if (holding) return void held.push(res);
      const input = (JSON.parse(body) as { input: string[] }).input;
      res.writeHead(200, { 'content-type': 'application/json' }).end(fakeEmbeddingBody(input, dim));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    received: () => received,
    open: () => held.filter((res) => !res.destroyed && !res.writableEnded).length,
    hold: (on: boolean) => (holding = on),
    fail: (on: boolean) => (failing = on),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

interface EmbedRow {
  store: BenchStore;
  setting: string;
  served: number;
  other: number;
  p50: number;
  p99: number;
  lexicalShare: number;
  embedCalls: number;
  /** Provider requests still open when the outage ends: calls nobody waits for any more, unless aborted. */
  openAtEnd: number;
}

/** The query embedding's settings: as before the fuse, the fuse without a circuit, and the defaults. */
const EMBED_SETTINGS = {
  before: { MUNINN_QUERY_EMBED_TIMEOUT_MS: '60000', MUNINN_MODEL_BREAKER_FAILURES: '0' },
  'fuse-only': { MUNINN_MODEL_BREAKER_FAILURES: '0' },
  default: {},
} as const;
type EmbedSetting = keyof typeof EMBED_SETTINGS;
const EMBED_LABEL: Record<EmbedSetting, string> = {
  before: '60 s fuse, no circuit',
  'fuse-only': '3 s fuse, no circuit',
  default: '3 s fuse, circuit',
};

async function embedRun(target: { store: BenchStore; pgBase?: string }, setting: EmbedSetting) {
  const embeddings = await startEmbeddings(16);
  const app = await startStandalone(`embed-outage-${setting}`, target, {
    EMBEDDING_BASE_URL: embeddings.url,
    EMBEDDING_MODEL: 'bench-embedder',
    EMBEDDING_DIM: '16',
    ...EMBED_SETTINGS[setting],
  });
  try {
    const uri = 'viking://user/default/memories/events/lighthouse.md';
    const write = await call(app.url, '/api/v1/content/write', {
      uri,
      content: 'The lighthouse keeper retires in May; the lamp is to be automated.',
      mode: 'create',
      wait: true,
    });
    if (write.status !== 200) throw new Error(`seed write answered ${write.status}`);
    embeddings.hold(true);
    const before = embeddings.received();
    const latencies: number[] = [];
    let served = 0;
    let other = 0;
    let lexical = 0;
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < until) {
          const t = Date.now();
          const r = await call(app.url, '/api/v1/search/search', {
            mode: 'context',
            query: 'what did we say about the lighthouse?',
            dedup_turns: 0,
          });
          latencies.push(Date.now() - t);
          const entries = (r.body?.result?.entries ?? []) as { uri: string }[];
          if (r.status === 200 && entries.some((e) => e.uri === uri)) served++;
          else other++;
          if (r.body?.result?.stats?.lexical_only > 0) lexical++;
        }
      }),
    );
    const row: EmbedRow = {
      store: target.store,
      setting,
      served,
      other,
      p50: pct(latencies, 50),
      p99: pct(latencies, 99),
      lexicalShare: latencies.length ? lexical / latencies.length : 0,
      embedCalls: embeddings.received() - before,
      openAtEnd: embeddings.open(),
    };
    return row;
  } finally {
    embeddings.hold(false);
    await app.stop();
    embeddings.close();
  }
}

const WRITE_WORDS = (
  'amaranth bergamot cardamom dittany elecampane fenugreek galangal hyssop ironweed juniper kava lovage ' +
  'mugwort nigella oregano patchouli quassia rue saffron tarragon turmeric valerian woad yarrow'
).split(' ');

interface WriteRow {
  store: BenchStore;
  circuit: 'off' | 'on';
  written: number;
  found: number;
  foundP50S: number;
  foundMaxS: number;
  embedCalls: number;
  settledS: number;
}

/**
 * Files written one a second for SECONDS while the embedding provider answers 503, with the circuits off
 * (`MUNINN_MODEL_BREAKER_FAILURES=0`) or on: seconds until each is found by its one rare word, the calls the
 * provider received meanwhile, and the seconds from its return until the queues are idle.
 */
async function writeRun(target: { store: BenchStore; pgBase?: string }, circuit: 'off' | 'on'): Promise<WriteRow> {
  const embeddings = await startEmbeddings(16);
  const app = await startStandalone(`embed-outage-writes-${circuit}`, target, {
    EMBEDDING_BASE_URL: embeddings.url,
    EMBEDDING_MODEL: 'bench-embedder',
    EMBEDDING_DIM: '16',
    ...(circuit === 'off' ? { MUNINN_MODEL_BREAKER_FAILURES: '0' } : {}),
  });
  try {
    embeddings.fail(true);
    const before = embeddings.received();
    const waits: number[] = [];
    const words = WRITE_WORDS.slice(0, Math.max(1, Math.min(WRITE_WORDS.length, SECONDS)));
    await Promise.all(
      words.map(async (word, i) => {
        await new Promise((r) => setTimeout(r, i * 1000));
        const uri = `viking://user/default/memories/entities/${word}.md`;
        const t = Date.now();
        const w = await call(app.url, '/api/v1/content/write', {
          uri,
          content: `The ${word} note: planted by the north wall.`,
          mode: 'create',
        });
        if (w.status !== 200) throw new Error(`write answered ${w.status}`);
        while (Date.now() - t < 60_000) {
          const r = await call(app.url, '/api/v1/search/find', { query: word, limit: 5 });
          if (((r.body?.result?.memories ?? []) as { uri: string }[]).some((m) => m.uri === uri)) {
            waits.push((Date.now() - t) / 1000);
            return;
          }
          await new Promise((r2) => setTimeout(r2, 100));
        }
      }),
    );
    const embedCalls = embeddings.received() - before;
    embeddings.fail(false);
    const back = Date.now();
    const idle = await call(app.url, '/api/v1/system/wait', { timeout: 120 });
    if (idle.status !== 200) throw new Error(`system/wait answered ${idle.status}`);
    return {
      store: target.store,
      circuit,
      written: words.length,
      found: waits.length,
      foundP50S: pct(waits, 50),
      foundMaxS: waits.length ? Math.max(...waits) : NaN,
      embedCalls,
      settledS: (Date.now() - back) / 1000,
    };
  } finally {
    embeddings.fail(false);
    await app.stop();
    embeddings.close();
  }
}

/** BENCH_OUTAGE_SCENARIOS, a comma list of `write`, `embed`, `model`, `gateways`, `tenant` (default all). */
const SCENARIOS = new Set((process.env.BENCH_OUTAGE_SCENARIOS ?? 'write,embed,model,gateways,tenant').split(','));

async function main() {
  buildStandalone();
  const writeRows: WriteRow[] = [];
  for (const target of SCENARIOS.has('write') ? benchStores() : [])
    for (const circuit of ['off', 'on'] as const) {
      const row = await writeRun(target, circuit);
      console.log(JSON.stringify(row));
      writeRows.push(row);
    }
  const embedRows: EmbedRow[] = [];
  for (const target of SCENARIOS.has('embed') ? benchStores() : [])
    for (const setting of ['before', 'fuse-only', 'default'] as const) {
      const row = await embedRun(target, setting);
      console.log(JSON.stringify(row));
      embedRows.push(row);
    }
  const llm = await startFakeLlmServer();
  const rows: Row[] = [];
  const gatewayRows: GatewaysRow[] = [];
  const tenantRows: TenantRow[] = [];
  try {
    for (const target of SCENARIOS.has('model') ? benchStores() : [])
      for (const circuit of ['off', 'on'] as const) {
        const row = await run(target, circuit, llm);
        console.log(JSON.stringify(row));
        rows.push(row);
      }
    const pg = SCENARIOS.has('gateways') ? benchStores().filter((t) => t.store === 'postgres') : [];
    if (SCENARIOS.has('gateways') && pg.length === 0) console.log('gateways: PostgreSQL only, skipped');
    for (const target of pg)
      for (const shared of [false, true]) {
        const row = await gatewaysRun(target, shared, llm, { clients: CLIENTS, call, ask });
        console.log(JSON.stringify(row));
        gatewayRows.push(row);
      }
    for (const target of SCENARIOS.has('tenant') ? benchStores() : []) {
      const row = await tenantRun(target, llm, CLIENTS);
      console.log(JSON.stringify(row));
      tenantRows.push(row);
    }
  } finally {
    await llm.close();
  }
  console.log(`\n${CLIENTS} clients, ${SECONDS} s of a provider that holds every call; expansion fuse 5 s\n`);
  console.log(
    '| store | circuit | requests answered | p50 ms | p99 ms | model calls | s to the first expansion after |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.store} | ${r.circuit} | ${r.answered} | ${r.p50} | ${r.p99} | ${r.modelCalls} | ${r.recoveryS.toFixed(1)} |`,
    );
  console.log(`\n${CLIENTS} clients, ${SECONDS} s of an embedding provider that holds every call\n`);
  console.log(
    '| store | query embedding | answered with the memory | other answers | p50 ms | p99 ms | lexical | embedding calls | still open at its end |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of embedRows)
    console.log(
      `| ${r.store} | ${EMBED_LABEL[r.setting as EmbedSetting]} | ${r.served} | ${r.other} | ${r.p50} | ${r.p99} | ${(100 * r.lexicalShare).toFixed(0)}% | ${r.embedCalls} | ${r.openAtEnd} |`,
    );
  console.log(`\nFiles written one a second for ${SECONDS} s while the embedding provider answers 503\n`);
  console.log(
    '| store | circuit | found by a search | s from write to found, p50 / max | calls to the provider | s from its return until the queues are idle |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of writeRows)
    console.log(
      `| ${r.store} | ${r.circuit} | ${r.found} of ${r.written} | ${r.foundP50S.toFixed(1)} / ${r.foundMaxS.toFixed(1)} | ${r.embedCalls} | ${r.settledS.toFixed(1)} |`,
    );
  printGateways(gatewayRows, CLIENTS);
  printTenant(tenantRows, CLIENTS);
  for (const store of new Set(rows.map((r) => r.store))) {
    const [off, on] = ['off', 'on'].map((c) => rows.find((r) => r.store === store && r.circuit === c));
    if (off && on)
      console.log(
        `${store}: p50 off / on ${(off.p50 / on.p50).toFixed(1)}×, requests on / off ${(on.answered / off.answered).toFixed(1)}×`,
      );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

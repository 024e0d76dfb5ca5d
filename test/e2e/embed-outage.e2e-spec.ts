// docs/limits-and-security.md, "A model that stops answering": an embedding provider that hangs makes
// searches lexical, within MUNINN_QUERY_EMBED_TIMEOUT_MS and then at once while the retriever's circuit is
// open, instead of failing every context request. Real HTTP, BullMQ and an OpenAI-protocol /embeddings server.
import { createServer, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Db, STORE_DB } from '@app/store';
import { eventually, fakeEmbeddingBody, metricValue, startTestApp, TestApp } from '@app/testing';
import { context, seedMany, urisOf } from './context-support';

const DIM = 16;
const NARWHAL = 'viking://user/default/memories/entities/narwhal.md';
const ANIMALS = 'viking://user/default/memories/entities';
const OKAPI = `${ANIMALS}/okapi.md`;
const COOLDOWN_S = 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An `/embeddings` server that answers at once, holds every request until released, or answers 503; it counts
 * the held requests their client closed before an answer (abandoned).
 */
async function startEmbeddings() {
  const held: { res: ServerResponse; input: string[] }[] = [];
  let holding = false;
  let failing = false;
  let received = 0;
  let abandoned = 0;
  const answer = (res: ServerResponse, input: string[]) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(fakeEmbeddingBody(input, DIM));
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received++;
      const input = (JSON.parse(body) as { input: string[] }).input;
      if (failing) res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable"}');
      else if (holding) {
        held.push({ res, input });
        res.on('close', () => !res.writableEnded && abandoned++);
      } else answer(res, input);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    received: () => received,
    abandoned: () => abandoned,
    hold: () => (holding = true),
    fail: (on: boolean) => (failing = on),
    release: () => {
      holding = false;
      for (const h of held.splice(0)) if (!h.res.destroyed) answer(h.res, h.input);
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A test app embedding through `embeddings`, with `env` added, and the narwhal memory written. */
async function startWith(embeddings: Awaited<ReturnType<typeof startEmbeddings>>, env: Record<string, string>) {
  const app = await startTestApp({
    env: { EMBEDDING_BASE_URL: embeddings.url, EMBEDDING_MODEL: 'fake', EMBEDDING_DIM: String(DIM), ...env },
  });
  await seedMany(app, {}, { [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.' });
  return app;
}

/** Releases and closes what {@link startWith} started. */
async function stop(app: TestApp | undefined, embeddings: Awaited<ReturnType<typeof startEmbeddings>> | undefined) {
  embeddings?.release();
  await app?.close();
  embeddings?.close();
}

describe('an embedding provider that stops answering', () => {
  let app: TestApp;
  let embeddings: Awaited<ReturnType<typeof startEmbeddings>>;
  const ask = async (query = 'narwhal tusk') => {
    const r = await context(app, { query, query_expansion: 'off', dedup_turns: 0 });
    expect(r.status).toBe(200);
    return { uris: urisOf(r), lexicalOnly: r.body.result.stats.lexical_only as number };
  };
  const findWithTelemetry = async () => {
    const r = await app.request('POST', '/api/v1/search/find', { body: { query: 'narwhal tusk', telemetry: true } });
    expect(r.status).toBe(200);
    const hits = (r.body.result.memories as { uri: string }[]).map((h) => h.uri);
    return { uris: hits, lexicalOnly: r.body.telemetry.summary.lexical_only as boolean };
  };
  // The retriever's query embeddings are counted with the other model calls (docs/operations.md, "Metrics").
  const metric = async (series: string) => (await metricValue(app.request, series)) ?? NaN;
  const calls = (outcome: string) => metric(`muninn_model_calls_total{call="embed",outcome="${outcome}"}`);
  const circuitOpen = () => metric('muninn_model_circuit_open{call="embed"}');
  const indexCalls = (outcome: string) => metric(`muninn_model_calls_total{call="index_embed",outcome="${outcome}"}`);
  const indexCircuitOpen = () => metric('muninn_model_circuit_open{call="index_embed"}');

  beforeAll(async () => {
    embeddings = await startEmbeddings();
    app = await startWith(embeddings, {
      MUNINN_QUERY_EMBED_TIMEOUT_MS: '300',
      MUNINN_MODEL_BREAKER_FAILURES: '2',
      MUNINN_MODEL_BREAKER_COOLDOWN_S: String(COOLDOWN_S),
      // A failed index job's entry is relayed again soon (the default waits 10 s).
      MUNINN_OUTBOX_GRACE_MS: '1000',
    });
  }, 60_000);
  afterAll(() => stop(app, embeddings));

  it('searches lexically past the fuse, then without asking while the circuit is open, then with vectors again', async () => {
    const normal = await ask();
    expect(normal).toEqual({ uris: expect.arrayContaining([NARWHAL]), lexicalOnly: 0 });
    expect(await findWithTelemetry()).toEqual({ uris: expect.arrayContaining([NARWHAL]), lexicalOnly: false });
    expect(await circuitOpen()).toBe(0);
    const answered = await calls('ok');
    expect(answered).toBeGreaterThan(0);

    embeddings.hold();
    const before = embeddings.received();
    // Each request's query is embedded once (the calls of a request share it): two late embeddings.
    for (let i = 0; i < 2; i++) {
      const late = await ask();
      expect(late.uris).toContain(NARWHAL);
      expect(late.lexicalOnly).toBeGreaterThan(0);
    }
    expect(embeddings.received()).toBe(before + 2);
    // Past its fuse a search's embedding is aborted: the provider's request is closed, not left to run for
    // the embedder's 30 s timeout and then retried.
    await eventually(async () => embeddings.abandoned() === 2, 5_000);
    // Open: searched lexically at once, the provider not asked.
    const open = await ask();
    expect(open.uris).toContain(NARWHAL);
    expect(open.lexicalOnly).toBeGreaterThan(0);
    expect(embeddings.received()).toBe(before + 2);
    expect(await calls('timeout')).toBe(2);
    expect(await calls('open')).toBeGreaterThanOrEqual(1);
    expect(await circuitOpen()).toBe(1);
    // /find keeps the contract's result and says so in its telemetry summary.
    const found = await findWithTelemetry();
    expect(found).toEqual({ uris: expect.arrayContaining([NARWHAL]), lexicalOnly: true });

    // The provider answers again; after the cool-down one search finds out and vectors are back.
    embeddings.release();
    await sleep(COOLDOWN_S * 1000 + 200);
    expect((await ask()).lexicalOnly).toBe(0);
    expect((await ask()).lexicalOnly).toBe(0);
    expect(embeddings.received()).toBe(before + 4);
    expect(await circuitOpen()).toBe(0);
    expect(await calls('ok')).toBe(answered + 2);
    expect(await calls('failed')).toBeNaN();
    expect(embeddings.abandoned()).toBe(2);
  });

  it('a file written while the provider fails is found by its words at once, and gets its vector once it answers', async () => {
    embeddings.fail(true);
    // Three writes, three index jobs: two failed embeddings in a row open the index circuit (the setting
    // above), and the jobs after them store their words without asking the provider.
    const files: Record<string, string> = {
      [OKAPI]: 'The okapi lives in the Ituri rainforest of Congo.',
      [`${ANIMALS}/tapir.md`]: 'The tapir browses at night along the river banks.',
      [`${ANIMALS}/pangolin.md`]: 'The pangolin rolls into a ball of scales when threatened.',
    };
    for (const [uri, content] of Object.entries(files)) {
      const w = await app.request('POST', '/api/v1/content/write', { body: { uri, content, mode: 'create' } });
      expect(w.status).toBe(200);
    }
    const embedders = async () => {
      const { rows } = await app.nest
        .get<Db>(STORE_DB)
        .query<{ embedder_id: string | null }>('SELECT embedder_id FROM nodes WHERE uri = ANY($1::text[])', [
          Object.keys(files),
        ]);
      return rows.map((r) => r.embedder_id);
    };
    const dirEmbedder = async () => {
      const { rows } = await app.nest
        .get<Db>(STORE_DB)
        .query<{ embedder_id: string | null }>('SELECT embedder_id FROM nodes WHERE uri = $1', [ANIMALS]);
      return rows[0]?.embedder_id;
    };
    // Before, the file had no words in the index until the provider answered: no search found it.
    const found = await eventually(async () => {
      const r = await ask('okapi rainforest');
      return r.uris.includes(OKAPI) ? r : null;
    }, 30_000);
    expect(found.lexicalOnly).toBeGreaterThan(0);
    expect(await embedders()).toEqual([null, null, null]);
    // Their directory's summary lists them too, stored without a vector (before, it kept its old listing
    // until the provider answered).
    const overview = async () =>
      String((await app.request('GET', `/api/v1/content/overview?uri=${ANIMALS}`)).body.result ?? '');
    await eventually(async () => {
      const o = await overview();
      return ['okapi', 'tapir', 'pangolin'].every((w) => o.includes(w));
    }, 30_000);
    expect(await dirEmbedder()).toBeNull();
    await eventually(async () => (await indexCalls('open')) >= 1, 30_000);
    expect(await indexCircuitOpen()).toBe(1);
    expect(await indexCalls('failed')).toBeGreaterThanOrEqual(2);

    embeddings.fail(false);
    // The jobs' retries, or the relay after them, add the vectors once the circuit lets a call through.
    const vectorised = await eventually(async () => {
      const ids = await embedders();
      return ids.every((id) => id === `openai:fake:${DIM}`) ? ids : null;
    }, 60_000);
    expect(vectorised).toHaveLength(3);
    await eventually(async () => (await dirEmbedder()) === `openai:fake:${DIM}`, 30_000);
    expect(await indexCircuitOpen()).toBe(0);
    await sleep(COOLDOWN_S * 1000 + 200);
    const r = await eventually(async () => {
      const x = await ask('okapi rainforest');
      return x.lexicalOnly === 0 ? x : null;
    }, 10_000);
    expect(r.uris).toContain(OKAPI);
  }, 120_000);
});

describe('a directory summary job whose attempts all fail while the provider is down', () => {
  let app: TestApp;
  let embeddings: Awaited<ReturnType<typeof startEmbeddings>>;
  const DIR = 'viking://resources/shelf';

  beforeAll(async () => {
    embeddings = await startEmbeddings();
    app = await startWith(embeddings, {
      // No circuit opens: a job whose embedding meets an open circuit waits for it (deferred, its attempts
      // kept); here each attempt fails on the provider's answer, and the job's three are spent.
      MUNINN_MODEL_BREAKER_FAILURES: '1000',
      // Each call fails at once (no retries of its own), so the job's attempts are spent within two seconds.
      EMBEDDING_MAX_RETRIES: '0',
      // The second write's refresh of the directory is deferred into a summary job this far ahead.
      MUNINN_SIDECAR_INTERVAL_MS: '3000',
      MUNINN_OUTBOX_GRACE_MS: '1000',
    });
  }, 60_000);
  afterAll(() => stop(app, embeddings));

  it('is asked for again by the relay once the provider answers: the summary gets its vector', async () => {
    const dirEmbedder = async () => {
      const { rows } = await app.nest
        .get<Db>(STORE_DB)
        .query<{ embedder_id: string | null }>('SELECT embedder_id FROM nodes WHERE uri = $1', [DIR]);
      return rows[0]?.embedder_id ?? null;
    };
    const write = (name: string, content: string) =>
      app.request('POST', '/api/v1/content/write', {
        body: { uri: `${DIR}/${name}.md`, content, mode: 'create', wait: true },
      });
    // The first write refreshes the directory in its own index job, with a vector; the second, within the
    // interval, defers the refresh into a summary job, which runs while the provider fails.
    expect((await write('atlas', 'An atlas of the northern seas.')).status).toBe(200);
    await eventually(async () => (await dirEmbedder()) === `openai:fake:${DIM}`, 15_000);
    expect((await write('almanac', 'A farmer almanac for the year.')).status).toBe(200);
    embeddings.fail(true);
    const overview = async () =>
      String((await app.request('GET', `/api/v1/content/overview?uri=${DIR}`)).body.result ?? '');
    // Stored without a vector (its new listing is read at once); its job's three attempts then fail.
    await eventually(async () => (await overview()).includes('almanac') && (await dirEmbedder()) === null, 30_000);
    await sleep(4_000);
    embeddings.fail(false);
    // No child changes again: only the relay can ask for the refresh (before, nothing did, and the summary stayed
    // without its vector).
    await eventually(async () => (await dirEmbedder()) === `openai:fake:${DIM}`, 45_000);
  }, 120_000);
});

// A fuse longer than the request's deadline: the search's embedding is abandoned before its find job's
// deadline, in time for a lexical answer, not left waiting on the provider past the request
// (docs/limits-and-security.md).
describe('a query embedding outlasting its request', () => {
  let app: TestApp;
  let embeddings: Awaited<ReturnType<typeof startEmbeddings>>;

  beforeAll(async () => {
    embeddings = await startEmbeddings();
    app = await startWith(embeddings, {
      MUNINN_QUERY_EMBED_TIMEOUT_MS: '60000',
      MUNINN_MODEL_BREAKER_FAILURES: '0',
      MUNINN_REQUEST_DEADLINE_MS: '3000',
    });
  }, 60_000);
  afterAll(() => stop(app, embeddings));

  it("is cut short of the request's deadline, and its call aborted", async () => {
    embeddings.hold();
    const before = embeddings.received();
    const r = await context(app, { query: 'narwhal tusk', query_expansion: 'off', dedup_turns: 0 });
    // The fuse was cut to two thirds of the find job's deadline: the search went on lexically in time for
    // the answer (with the 60 s fuse whole, the request ended at its deadline with nothing found).
    expect(r.status).toBe(200);
    expect(urisOf(r)).toContain(NARWHAL);
    expect(r.body.result.stats.lexical_only).toBeGreaterThan(0);
    expect(r.body.result.stats.retrieval_errors ?? []).toEqual([]);
    expect(embeddings.received()).toBe(before + 1);
    // And the provider's request was closed then, not at the 60 s fuse or the embedder's 30 s timeout.
    await eventually(async () => embeddings.abandoned() === 1, 5_000);
  });
});

// docs/architecture.md, "A job that kills its worker": a write whose indexing takes its retriever down is split
// per file, the file that does it runs alone, and once it died alone it is set aside instead of taking down one
// retriever after another; the batch's other files become searchable. Real gateway and retriever processes,
// BullMQ on Redis, PostgreSQL (two processes share the store, so PGlite cannot serve), and an OpenAI-protocol
// /embeddings server that never answers a text holding POISON (the retriever is killed while it waits).
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  eventually,
  fakeEmbeddingBody,
  startAppProcess,
  TestDatabase,
  uniqueTestPrefix,
  deletePrefix,
  waitConsumers,
  waitHealthy,
  freePort,
} from '@app/testing';

const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const DIM = 16;
const ROOT = 'viking://resources/crash';
const settled = (check: () => Promise<boolean>, ms = 120_000) =>
  eventually(check, { ms, pollMs: 250, retryErrors: true });

/** Answers every /embeddings request at once, except one holding POISON while `poisoning`: that one never. */
async function startEmbeddings(onPoison: () => void) {
  let poisoned = 0;
  let poisoning = true;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      if (poisoning && input.some((t) => t.includes('POISON'))) {
        poisoned++;
        onPoison();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(fakeEmbeddingBody(input, DIM));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    poisoned: () => poisoned,
    cure: () => (poisoning = false),
    close: () => (server.closeAllConnections(), server.close()),
  };
}

suite('an index job that takes its worker down (real processes)', () => {
  let db: TestDatabase;
  let embeddings: Awaited<ReturnType<typeof startEmbeddings>>;
  let env: Record<string, string>;
  let url: string;
  let gateway: AppProcess;
  let retriever: AppProcess;
  let kills = 0;
  let restarting: Promise<void> = Promise.resolve();
  const prefix = uniqueTestPrefix();

  const post = async (path: string, body: unknown, timeoutMs = 30_000) => {
    const r = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const found = async (word: string) => {
    const r = await post('/api/v1/search/find', { query: word, target_uri: ROOT, limit: 5 });
    return r.status === 200 ? (r.body.result.resources as { uri: string }[]).map((h) => h.uri) : [];
  };
  const heldMetric = async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^muninn_index_held_files (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const backlog = async () => {
    const r = await fetch(`${url}/api/v1/system/status`);
    return ((await r.json()) as any).result.backlog as Record<string, number | null>;
  };
  const entries = () =>
    db.query<{ uris: string[]; held: boolean; open_runs: number; alone_runs: number }>(
      'SELECT uris, held_at IS NOT NULL AS held, open_runs, alone_runs FROM index_outbox ORDER BY id',
    );

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    // The retriever is killed while the provider holds a poisoned request, and a new one started.
    embeddings = await startEmbeddings(() => {
      kills++;
      restarting = restarting.then(async () => {
        await retriever.kill('SIGKILL');
        retriever = startAppProcess('retriever', env);
      });
    });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      MUNINN_QUEUE_PREFIX: prefix,
      EMBEDDING_BASE_URL: embeddings.url,
      EMBEDDING_MODEL: 'fake',
      EMBEDDING_DIM: String(DIM),
      MUNINN_INDEX_CRASH_LIMIT: '1',
      MUNINN_INDEX_HOLD_MS: '15000',
      MUNINN_OUTBOX_GRACE_MS: '1000',
      MUNINN_OUTBOX_POLL_MS: '200',
    };
    gateway = startAppProcess('gateway', env);
    retriever = startAppProcess('retriever', env);
    await waitHealthy(url);
    await waitConsumers(url, ['find', 'index']);
  }, 240_000);

  afterAll(async () => {
    await restarting;
    await Promise.all([gateway, retriever].map((p) => p?.kill('SIGKILL')));
    embeddings?.close();
    await db?.drop();
    await deletePrefix(env.REDIS_URL, prefix);
  });

  it('splits the write, indexes its other files, sets the file aside once it died alone, and indexes it after the hold', async () => {
    const files = {
      [`${ROOT}/aardvark.md`]: 'Field notes on the aardvark qzxaardv burrow.',
      [`${ROOT}/bongo.md`]: 'Field notes on the bongo qzxbongo antelope.',
      [`${ROOT}/poison.md`]: 'POISON: the text qzxpoison whose embedding takes the retriever down.',
    };
    const write = await post(
      '/api/v1/content/batch-write',
      {
        root_uri: ROOT,
        operations: Object.entries(files).map(([uri, content]) => ({ uri, content, mode: 'create' })),
        wait: true,
        timeout: 180,
      },
      200_000,
    );
    // The batch's run died with its retriever; the next run split it and failed for good, saying so.
    expect(write.status).toBe(200);
    expect(write.body.result.vector_status).toBe('failed');
    expect(write.body.result.queue_status.Embedding.errors).toEqual([
      // The files and the directories the write made.
      {
        message: expect.stringMatching(
          /indexing these 5 nodes took down a worker once: each is indexed by a job of its own now$/,
        ),
      },
    ]);

    // The other two files are found; the poisoned one is set aside after its run alone died too.
    await settled(async () => (await found('qzxaardv')).includes(`${ROOT}/aardvark.md`));
    await settled(async () => (await found('qzxbongo')).includes(`${ROOT}/bongo.md`));
    await settled(async () => (await entries()).some((e) => e.held));
    expect(await entries()).toEqual([{ uris: [`${ROOT}/poison.md`], held: true, open_runs: 1, alone_runs: 0 }]);
    // The batch's run, the file's run beside the others, its run alone: three deaths, no fourth.
    expect(embeddings.poisoned()).toBe(3);
    expect(kills).toBe(3);
    expect(await heldMetric()).toBe(1);
    expect(await backlog()).toMatchObject({ index_pending: 1, index_held: 1 });
    expect(await found('qzxpoison')).not.toContain(`${ROOT}/poison.md`);
    await restarting;
    await new Promise((r) => setTimeout(r, 3000));
    expect(retriever.child.exitCode).toBeNull();
    expect(embeddings.poisoned()).toBe(3);

    // What killed it is mended: the run after the hold (alone) indexes the file.
    embeddings.cure();
    await settled(async () => (await found('qzxpoison')).includes(`${ROOT}/poison.md`), 60_000);
    await settled(async () => (await entries()).length === 0);
    expect(await heldMetric()).toBe(0);
    expect(await backlog()).toMatchObject({ index_pending: 0, index_held: 0 });
    expect(kills).toBe(3);
  }, 300_000);
});

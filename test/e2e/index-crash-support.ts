// docs/architecture.md, "A job that kills its worker": what index-crash.e2e-spec.ts (a gateway and a retriever on
// PostgreSQL with BullMQ, the retriever killed) and index-crash-standalone.e2e-spec.ts (one standalone process on its
// embedded store with the in-process queue, the whole server killed) share: an OpenAI-protocol /embeddings server
// that never answers a text holding POISON, a killer that kills the deployment's worker while it waits and starts a
// new one, and the scenario of a batch-write holding that text.
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { AppProcess, eventually, fakeEmbeddingBody } from '@app/testing';

const DIM = 16;
const ROOT = 'viking://resources/crash';
const settled = (check: () => Promise<boolean>, ms = 120_000) =>
  eventually(check, { ms, pollMs: 250, retryErrors: true });

export type Embeddings = Awaited<ReturnType<typeof startEmbeddings>>;

/** Answers every /embeddings request at once, except one holding POISON while `poisoning`: that one never. */
export async function startEmbeddings(onPoison: () => void) {
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

/** The settings both deployments share: a crash limit of one and a short hold, so the test sees every step. */
export const crashEnv = (embeddings: Embeddings, holdMs: number) => ({
  HOST: '127.0.0.1',
  EMBEDDING_BASE_URL: embeddings.url,
  EMBEDDING_MODEL: 'fake',
  EMBEDDING_DIM: String(DIM),
  MUNINN_INDEX_CRASH_LIMIT: '1',
  MUNINN_INDEX_HOLD_MS: String(holdMs),
  MUNINN_OUTBOX_GRACE_MS: '1000',
  MUNINN_OUTBOX_POLL_MS: '200',
});

/**
 * A deployment under test: its URL, the process the poisoned embedding kills (`worker`, restarted by `restart`),
 * and, where the test can read the store beside it, its outbox entries.
 */
export interface Deployment {
  url: string;
  worker(): AppProcess;
  restart(): Promise<void>;
  entries?: () => Promise<{ uris: string[]; held: boolean; open_runs: number; alone_runs: number }[]>;
}

/**
 * Kills the deployment's worker each time the provider holds a poisoned request, and starts a new one; counts the
 * kills, and `settle()` waits for the last restart.
 */
export function killer(deployment: () => Deployment) {
  let kills = 0;
  let restarting: Promise<void> = Promise.resolve();
  return {
    onPoison: () => {
      kills++;
      restarting = restarting.then(() => deployment().restart());
    },
    kills: () => kills,
    settle: () => restarting,
  };
}

/** The batch-write with the poisoned file, then what the deployment must do with it, step by step. */
export async function poisonedBatch(
  d: Deployment,
  embeddings: Embeddings,
  k: ReturnType<typeof killer>,
  waitWrite: boolean,
) {
  const post = async (path: string, body: unknown, timeoutMs = 30_000) => {
    const r = await fetch(`${d.url}${path}`, {
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
    const text = await (await fetch(`${d.url}/metrics`)).text();
    return Number(/^muninn_index_held_files (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const backlog = async () => {
    const r = await fetch(`${d.url}/api/v1/system/status`);
    return ((await r.json()) as any).result.backlog as Record<string, number | null>;
  };

  const files = {
    [`${ROOT}/aardvark.md`]: 'Field notes on the aardvark qzxaardv burrow.',
    [`${ROOT}/bongo.md`]: 'Field notes on the bongo qzxbongo antelope.',
    [`${ROOT}/poison.md`]: 'POISON: the text qzxpoison whose embedding takes the worker down.',
  };
  const write = await post(
    '/api/v1/content/batch-write',
    {
      root_uri: ROOT,
      operations: Object.entries(files).map(([uri, content]) => ({ uri, content, mode: 'create' })),
      wait: waitWrite,
      timeout: 180,
    },
    200_000,
  );
  expect(write.status).toBe(200);
  if (waitWrite) {
    // The batch's run died with its worker; the next run split it and failed for good, saying so.
    expect(write.body.result.vector_status).toBe('failed');
    expect(write.body.result.queue_status.Embedding.errors).toEqual([
      // The files and the directories the write made.
      {
        message: expect.stringMatching(
          /indexing these 5 nodes took down a worker once: each is indexed by a job of its own now$/,
        ),
      },
    ]);
  }

  // The other two files are found; the poisoned one is set aside after its run alone died too.
  await settled(async () => (await found('qzxaardv')).includes(`${ROOT}/aardvark.md`));
  await settled(async () => (await found('qzxbongo')).includes(`${ROOT}/bongo.md`));
  await settled(async () => (await backlog()).index_held === 1);
  // The directories the write made were bystanders of the deaths: each runs alone in turn, and is indexed.
  await settled(async () => (await backlog()).index_pending === 1);
  if (d.entries) {
    expect(await d.entries()).toEqual([{ uris: [`${ROOT}/poison.md`], held: true, open_runs: 1, alone_runs: 0 }]);
  }
  // The batch's run, the file's run beside the others, its run alone: three deaths, no fourth.
  expect(embeddings.poisoned()).toBe(3);
  expect(k.kills()).toBe(3);
  expect(await heldMetric()).toBe(1);
  expect(await backlog()).toMatchObject({ index_pending: 1, index_held: 1 });
  expect(await found('qzxpoison')).not.toContain(`${ROOT}/poison.md`);
  await k.settle();
  await new Promise((r) => setTimeout(r, 3000));
  expect(d.worker().child.exitCode).toBeNull();
  expect(embeddings.poisoned()).toBe(3);

  // What killed it is mended: the run after the hold (alone) indexes the file.
  embeddings.cure();
  await settled(async () => (await found('qzxpoison')).includes(`${ROOT}/poison.md`), 90_000);
  await settled(async () => (await backlog()).index_pending === 0);
  expect(await heldMetric()).toBe(0);
  expect(await backlog()).toMatchObject({ index_pending: 0, index_held: 0 });
  expect(k.kills()).toBe(3);
}

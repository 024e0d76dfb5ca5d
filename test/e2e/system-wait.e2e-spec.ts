// `POST /api/v1/system/wait` reports what the workers did while it waited (docs/fs-and-mcp.md,
// "system/wait"): counts kept in Redis by the processor base, over real HTTP, BullMQ and workers.
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { QueueName } from '@app/contracts';
import { fakeEmbeddingBody, startTestApp, TestApp } from '@app/testing';

const ROOT_KEY = 'system-wait-root-key-0123456789';

describe('system/wait activity report', () => {
  let app: TestApp;
  let alice: string;
  let bob: string;
  let index: Queue;
  const post = (path: string, body: unknown, key = alice) => app.request('POST', path, { key, body });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT_KEY });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'waits', admin_user_id: 'alice' },
    });
    alice = acct.body.result.user_key;
    const other = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'others', admin_user_id: 'bob' },
    });
    bob = other.body.result.user_key;
    index = new Queue(QueueName.Index, {
      connection: { url: app.config.redis.url, maxRetriesPerRequest: null } as never,
      prefix: app.config.queues.prefix,
    });
    // Drain whatever the setup queued, so each case starts from idle queues.
    expect((await post('/api/v1/system/wait', {})).status).toBe(200);
  }, 60000);

  afterAll(async () => {
    await index.resume();
    await index.close();
    await app.close();
  });

  /**
   * Holds the index queue while `queue()` adds work, starts a wait per key, and releases the work once
   * the waits have had ample time to take their starting snapshots: the jobs can only run after that.
   */
  async function waitOver(queue: () => Promise<void>, keys = [alice]) {
    await index.pause();
    try {
      await queue();
      // Index jobs wait as `prioritized` (the fair order, docs/limits-and-security.md), plain ones as `waiting`.
      expect(await index.getJobCountByTypes('waiting', 'prioritized')).toBeGreaterThan(0);
      const waits = keys.map((key) => post('/api/v1/system/wait', { timeout: 60 }, key));
      await new Promise((r) => setTimeout(r, 1000));
      await index.resume();
      const answers = await Promise.all(waits);
      for (const r of answers) expect(r.status).toBe(200);
      return answers.map((r) => r.body.result);
    } finally {
      await index.resume();
    }
  }

  it('counts the index jobs of writes queued before the wait and done during it', async () => {
    const files = ['a', 'b', 'c'];
    const [result] = await waitOver(async () => {
      for (const f of files) {
        const w = await post('/api/v1/content/write', {
          uri: `viking://resources/waits/${f}.md`,
          content: `file ${f}\n`,
          mode: 'create',
          wait: false,
        });
        expect([w.status, w.body.result.vector_status]).toEqual([200, 'queued']);
      }
    });
    expect(result.Embedding.processed).toBeGreaterThanOrEqual(files.length);
    expect(result.Embedding).toMatchObject({ requeue_count: 0, error_count: 0, errors: [] });
    // Queues nobody used report zeros, under their own names.
    expect(result.find).toEqual({ processed: 0, requeue_count: 0, error_count: 0, errors: [] });
  }, 90000);

  it("counts a job that fails for good; its message only for the job's own account and the root key", async () => {
    const [mine, theirs, root] = await waitOver(async () => {
      await index.add(QueueName.Index, { accountId: 'waits', not: 'an index job' }, { attempts: 1 });
    }, [alice, bob, ROOT_KEY]);
    const failed = { error_count: 1, requeue_count: 0, errors: [{ message: 'INTERNAL: malformed index job payload' }] };
    expect(mine.Embedding).toMatchObject(failed);
    expect(root.Embedding).toMatchObject(failed);
    // Another tenant waits for the same queues and sees the count, never the message.
    expect(theirs.Embedding).toMatchObject({ error_count: 1, errors: [] });
  }, 90000);

  it('reports zeros on a second wait with nothing to do, old failures notwithstanding', async () => {
    const r = await post('/api/v1/system/wait', {});
    expect(r.status).toBe(200);
    for (const [name, status] of Object.entries(r.body.result))
      expect([name, status]).toEqual([name, { processed: 0, requeue_count: 0, error_count: 0, errors: [] }]);
    expect(Object.keys(r.body.result)).toEqual(expect.arrayContaining(['Embedding', 'Semantic']));
  });
});

/**
 * An OpenAI-compatible `/embeddings` server (the one allowed stand-in) that refuses, with a 400 its
 * client never retries, the first request whose input contains each of `markers`: the index job of
 * a write holding one fails once, and BullMQ runs it again.
 */
async function startFlakyEmbeddings(markers: string[]) {
  const left = new Set(markers);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      const hit = [...left].find((m) => input.some((t) => t.includes(m)));
      if (hit) {
        left.delete(hit);
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"refused once"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(fakeEmbeddingBody(input, DIM));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

const DIM = 16;

describe('a failed attempt that is retried counts as a requeue, not an error', () => {
  let app: TestApp;
  let embeddings: Awaited<ReturnType<typeof startFlakyEmbeddings>>;
  let index: Queue;
  const post = (path: string, body: unknown) => app.request('POST', path, { body });

  beforeAll(async () => {
    embeddings = await startFlakyEmbeddings(['write-marker-qzx', 'wait-marker-qzx']);
    app = await startTestApp({
      env: { EMBEDDING_BASE_URL: embeddings.url, EMBEDDING_MODEL: 'fake', EMBEDDING_DIM: String(DIM) },
    });
    index = new Queue(QueueName.Index, {
      connection: { url: app.config.redis.url, maxRetriesPerRequest: null } as never,
      prefix: app.config.queues.prefix,
    });
    expect((await post('/api/v1/system/wait', {})).status).toBe(200);
  }, 60000);

  afterAll(async () => {
    await index.resume();
    await index.close();
    await app.close();
    embeddings.close();
  });

  it("in a waiting write's queue_status", async () => {
    const w = await post('/api/v1/content/write', {
      uri: 'viking://resources/retry/a.md',
      content: 'write-marker-qzx\n',
      mode: 'create',
      wait: true,
      timeout: 60,
    });
    expect([w.status, w.body.result.vector_status]).toEqual([200, 'complete']);
    expect(w.body.result.queue_status.Embedding).toMatchObject({ processed: 1, requeue_count: 1, error_count: 0 });
  }, 90000);

  it('in system/wait', async () => {
    await index.pause();
    try {
      const w = await post('/api/v1/content/write', {
        uri: 'viking://resources/retry/b.md',
        content: 'wait-marker-qzx\n',
        mode: 'create',
        wait: false,
      });
      expect(w.status).toBe(200);
      const waited = post('/api/v1/system/wait', { timeout: 60 });
      await new Promise((r) => setTimeout(r, 1000));
      await index.resume();
      const r = await waited;
      expect(r.status).toBe(200);
      expect(r.body.result.Embedding).toMatchObject({ requeue_count: 1, error_count: 0, errors: [] });
      expect(r.body.result.Embedding.processed).toBeGreaterThanOrEqual(1);
    } finally {
      await index.resume();
    }
  }, 90000);
});

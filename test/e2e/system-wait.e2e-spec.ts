// `POST /api/v1/system/wait` reports what the workers did while it waited (docs/fs-and-mcp.md,
// "system/wait"): counts kept in Redis by the processor base, over real HTTP, BullMQ and workers.
import { Queue } from 'bullmq';
import { QueueName } from '@app/contracts';
import { startTestApp, TestApp } from '@app/testing';

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
      expect(await index.getJobCountByTypes('waiting')).toBeGreaterThan(0);
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

import { Job, Queue } from 'bullmq';
import { QueueName } from '@app/contracts';
import { redisOptions } from '@app/queue';
import { startTestApp, TestApp } from '@app/testing';

// docs/limits-and-security.md, "The embedded store's statements, account by account": the account a request was
// authenticated as travels with the jobs it adds, so their statements on the embedded store are that account's.
const ROOT = 'root-key-for-statement-lanes-0123456789';

describe('the account of a request travels with its jobs (BullMQ on Redis)', () => {
  let app: TestApp;
  let key: string;
  const queue = (name: QueueName) =>
    new Queue(name, { connection: redisOptions(app.config.redis.url), prefix: app.config.queues.prefix });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT });
    const made = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'lane-acme', admin_user_id: 'ada' },
    });
    key = made.body.result.user_key as string;
  });
  afterAll(() => app.close());

  /** The jobs of `name` kept in Redis, finished or not. */
  const jobs = async (name: QueueName): Promise<Job[]> => {
    const q = queue(name);
    try {
      return await q.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed']);
    } finally {
      await q.close();
    }
  };
  const accountsOf = (list: Job[]) => list.map((j) => (j.data as { _meta?: { accountId?: string } })._meta?.accountId);

  it("marks the index job of a write and the find jobs of a search with the caller's account", async () => {
    const write = await app.request('POST', '/api/v1/content/write', {
      key,
      body: { uri: 'viking://resources/lane.md', content: 'a lane-marked okapi', mode: 'create', wait: true },
    });
    expect(write.status).toBe(200);
    const found = await app.request('POST', '/api/v1/search/find', { key, body: { query: 'okapi', limit: 3 } });
    expect(found.status).toBe(200);
    expect(found.body.result.resources.map((h: { uri: string }) => h.uri)).toContain('viking://resources/lane.md');

    const index = await jobs(QueueName.Index);
    expect(index.length).toBeGreaterThan(0);
    expect(new Set(accountsOf(index))).toEqual(new Set(['lane-acme']));
    const finds = await jobs(QueueName.Find);
    expect(finds.length).toBeGreaterThan(0);
    expect(new Set(accountsOf(finds))).toEqual(new Set(['lane-acme']));
  });
});

import { ChildProcess, spawn } from 'node:child_process';
import { Client } from 'pg';
import { AppProcess, buildDist, createTestDatabase, freePort, startAppProcess, TestDatabase, waitHealthy } from '@app/testing';

// A separate gateway and retriever share one PostgreSQL store (PGlite is single-process), so this suite
// runs where the CI provides a PostgreSQL server with pgvector, like faults.e2e-spec.ts.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;

/** A word no other file contains, so a find for it has exactly one right answer. */
const token = (tag: string, i: number) => `${tag}${[...String(i)].map((d) => 'qwertyuiop'[Number(d)]).join('')}x`;

async function eventually(check: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('condition not met in time');
}

suite('write path under faults (real processes)', () => {
  let db: TestDatabase;
  let redis: ChildProcess;
  let redisPort: number;
  let env: Record<string, string>;
  let url: string;
  let gateway: AppProcess;
  let retriever: AppProcess;

  const startRedis = () => spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any };
  };
  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query(text, params)).rows as T[];
    } finally {
      await c.end();
    }
  };

  /** Writes `n` new files with 6 writers; `at(i)` runs before write i (to inject a fault). */
  async function storm(tag: string, n: number, at: (i: number) => Promise<void>) {
    const acked: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < n) {
          const i = next++;
          await at(i);
          const uri = `viking://resources/${tag}/f${i}.md`;
          try {
            const r = await post('/api/v1/content/write', { uri, content: `Storm file ${i} about ${token(tag, i)}.`, mode: 'create' });
            if (r.status === 200) acked.push(uri);
          } catch {
            /* the gateway was down: not acknowledged */
          }
        }
      }),
    );
    return acked;
  }

  /** Acknowledged ⊆ stored, and every stored file becomes findable through the API; the outbox drains. */
  async function reconcile(tag: string, acked: string[]) {
    const stored = (await sql<{ uri: string }>(`SELECT uri FROM nodes WHERE uri LIKE $1 AND kind = 'file'`, [`viking://resources/${tag}/%`])).map((r) => r.uri);
    expect(stored.length).toBeGreaterThan(0);
    expect(acked.filter((u) => !stored.includes(u))).toEqual([]);
    const pending = new Set(stored);
    await eventually(async () => {
      for (const uri of [...pending]) {
        const i = Number(/f(\d+)\.md$/.exec(uri)![1]);
        const r = await post('/api/v1/search/find', { query: token(tag, i), target_uri: `viking://resources/${tag}`, limit: 3 });
        if (r.status === 200 && r.body.result.resources.some((h: { uri: string }) => h.uri === uri)) pending.delete(uri);
      }
      return pending.size === 0;
    }, 120_000);
    await eventually(async () => (await sql<{ n: number }>('SELECT count(*)::int AS n FROM index_outbox'))[0].n === 0);
    return { acked: acked.length, stored: stored.length };
  }

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    redisPort = await freePort();
    redis = startRedis();
    await new Promise((r) => setTimeout(r, 300));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db.url, REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      MUNINN_QUEUE_PREFIX: `wfaults-${port}`, MUNINN_OUTBOX_GRACE_MS: '1000', MUNINN_OUTBOX_POLL_MS: '200',
    };
    gateway = startAppProcess('gateway', env);
    retriever = startAppProcess('retriever', env);
    await waitHealthy(url);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([gateway, retriever].map((p) => p?.kill('SIGKILL')));
    redis?.kill('SIGKILL');
    await db?.drop();
  });

  it('Redis stopped mid write-storm and restarted empty: acknowledged = stored = searchable', async () => {
    const acked = await storm('outage', 120, async (i) => {
      if (i === 30) {
        redis.kill('SIGKILL');
        await new Promise((r) => setTimeout(r, 300));
      }
      if (i === 80) redis = startRedis();
    });
    // Writes during the outage are stored with their outbox entry, so they are acknowledged too.
    expect(acked.length).toBe(120);
    const counts = await reconcile('outage', acked);
    expect(counts).toEqual({ acked: 120, stored: 120 });
    expect(gateway.child.exitCode).toBeNull();
    expect(retriever.child.exitCode).toBeNull();
  }, 240_000);

  it('a gateway killed mid write-storm (commits not yet enqueued): whatever it stored becomes searchable', async () => {
    const acked = await storm('crash', 90, async (i) => {
      if (i === 40) await gateway.kill('SIGKILL');
      if (i === 60) {
        gateway = startAppProcess('gateway', env);
        await waitHealthy(url);
      }
    });
    expect(acked.length).toBeGreaterThan(0);
    const counts = await reconcile('crash', acked);
    expect(counts.stored).toBeGreaterThanOrEqual(counts.acked);
  }, 240_000);
});

import {
  AppProcess,
  buildDist,
  createTestDatabase,
  freePort,
  OwnRedis,
  startAppProcess,
  TestDatabase,
  waitConsumers,
  waitHealthy,
  eventually,
} from '@app/testing';

// A separate gateway and retriever share one PostgreSQL store (PGlite is single-process), so this suite
// runs where the CI provides a PostgreSQL server with pgvector, like faults.e2e-spec.ts. Redis is this
// suite's own server: it is killed and restarted (empty) on purpose.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;

/** A word no other file contains, so a find for it has exactly one right answer. */
const token = (tag: string, i: number) => `${tag}${[...String(i)].map((d) => 'qwertyuiop'[Number(d)]).join('')}x`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds; a failing attempt (a server still away) counts as "not yet". */
const settled = (check: () => Promise<boolean>, ms = 90_000) =>
  eventually(check, { ms, pollMs: 250, retryErrors: true });

suite('write path under faults (real processes)', () => {
  let db: TestDatabase;
  let redis: OwnRedis;
  let env: Record<string, string>;
  let url: string;
  let gateway: AppProcess;
  let retriever: AppProcess;

  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const healthStatus = () =>
    fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status,
      () => 0,
    );

  /** Writes up to `n` new files with 6 writers; `at(i)` runs before write i (to inject a fault; false stops). */
  async function storm(tag: string, n: number, at: (i: number) => Promise<boolean | void>) {
    const acked: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < n) {
          const i = next++;
          if ((await at(i)) === false) return;
          const uri = `viking://resources/${tag}/f${i}.md`;
          try {
            const r = await post('/api/v1/content/write', {
              uri,
              content: `Storm file ${i} about ${token(tag, i)}.`,
              mode: 'create',
            });
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
    const stored = (
      await db.query<{ uri: string }>(`SELECT uri FROM nodes WHERE uri LIKE $1 AND kind = 'file'`, [
        `viking://resources/${tag}/%`,
      ])
    ).map((r) => r.uri);
    expect(stored.length).toBeGreaterThan(0);
    expect(acked.filter((u) => !stored.includes(u))).toEqual([]);
    const pending = new Set(stored);
    const found = async (uri: string) => {
      const i = Number(/f(\d+)\.md$/.exec(uri)![1]);
      const r = await post('/api/v1/search/find', {
        query: token(tag, i),
        target_uri: `viking://resources/${tag}`,
        limit: 3,
      }).catch(() => null);
      if (r?.status === 200 && r.body.result.resources.some((h: { uri: string }) => h.uri === uri)) pending.delete(uri);
    };
    await settled(async () => {
      const left = [...pending];
      for (let k = 0; k < left.length; k += 8) await Promise.all(left.slice(k, k + 8).map(found));
      return pending.size === 0;
    }, 120_000);
    await settled(
      async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_outbox'))[0].n === 0,
    );
    return { acked: acked.length, stored: stored.length };
  }

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    redis = new OwnRedis(await freePort());
    await redis.start();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      MUNINN_QUEUE_PREFIX: `wfaults-${port}`,
      MUNINN_OUTBOX_GRACE_MS: '1000',
      MUNINN_OUTBOX_POLL_MS: '200',
    };
    gateway = startAppProcess('gateway', env);
    retriever = startAppProcess('retriever', env);
    await waitHealthy(url);
    await waitConsumers(url, ['find', 'index', 'sidecar']);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([gateway, retriever].map((p) => p?.kill('SIGKILL')));
    await redis?.kill();
    await db?.drop();
  });

  it('Redis stopped mid write-storm and restarted empty: acknowledged = stored = searchable', async () => {
    const acked = await storm('outage', 120, async (i) => {
      if (i === 30) {
        await redis.kill();
        await sleep(300);
      }
      if (i === 80) await redis.start();
    });
    // Writes during the outage are stored with their outbox entry, so they are acknowledged too.
    expect(acked.length).toBe(120);
    const counts = await reconcile('outage', acked);
    expect(counts).toEqual({ acked: 120, stored: 120 });
    expect(gateway.child.exitCode).toBeNull();
    expect(retriever.child.exitCode).toBeNull();
  }, 240_000);

  it('Redis stopped for 5 s three times while indexing: the server recovers each time, logs stay bounded, all writes reconcile', async () => {
    const before = { gateway: gateway.output().length, retriever: retriever.output().length };
    let writing = true;
    const writes = storm('repeat', 1500, async () => writing && (await sleep(150), true));
    const recovered: boolean[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      await sleep(1500);
      await redis.kill();
      await sleep(5000);
      await redis.start();
      recovered.push(
        await settled(async () => (await healthStatus()) === 200, 30_000).then(
          () => true,
          () => false,
        ),
      );
    }
    writing = false;
    const acked = await writes;
    expect(recovered).toEqual([true, true, true]);
    expect(gateway.child.exitCode).toBeNull();
    expect(retriever.child.exitCode).toBeNull();
    // Bounded logging: a handful of lines per outage, not one per failed command.
    const logged = {
      gateway: gateway.output().length - before.gateway,
      retriever: retriever.output().length - before.retriever,
    };
    process.stdout.write(`[write-faults] log bytes over 3 outages: ${JSON.stringify(logged)}\n`);
    expect(logged.gateway).toBeLessThan(20_000);
    expect(logged.retriever).toBeLessThan(20_000);
    // Writes during an outage are stored with their outbox entry, so every one is acknowledged.
    const counts = await reconcile('repeat', acked);
    process.stdout.write(`[write-faults] repeated outages: ${JSON.stringify(counts)}\n`);
    expect(counts.acked).toBe(counts.stored);
  }, 300_000);

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

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDist, freePort, seedFromPgliteTemplate, startAppProcess, waitHealthy } from '@app/testing';

const run = (env: Record<string, string>) => startAppProcess('standalone', env);

describe('the built server as a process (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-proc-'));

  beforeAll(() => buildDist(), 180000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exits with one clear line when Redis cannot be reached', async () => {
    const child = run({ REDIS_URL: 'redis://127.0.0.1:1', MUNINN_DATA_DIR: dataDir });
    expect(await child.exited()).toBe(1);
    const lines = child.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^muninn: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*redis-server/);
  });

  it('refuses a bad configuration value, naming the variable', async () => {
    const child = run({ PORT: 'eighty', MUNINN_TRANSPORT: 'carrier-pigeon', MUNINN_DATA_DIR: dataDir });
    expect(await child.exited()).toBe(1);
    expect(child.output()).toContain('PORT');
    expect(child.output()).toContain('MUNINN_TRANSPORT');
    expect(child.output()).not.toContain('    at ');
  });

  /**
   * A server on a free port over the embedded store in `dir`; `seeded`: the folder holds a migrated store
   * already (a copy of the test template), for the tests that are not about a first start (creating one
   * takes a process 5–10 s here).
   */
  const serverEnv = async (dir: string, seeded = false) => {
    if (seeded) await seedFromPgliteTemplate(join(dir, 'pgdata'));
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: process.env.REDIS_URL ?? '',
      MUNINN_DATA_DIR: dir,
      MUNINN_QUEUE_PREFIX: `proc-${port}`,
    };
    return { env, url: `http://127.0.0.1:${port}` };
  };

  it('serves on the configured port, and keeps data across a restart (embedded store on disk)', async () => {
    const { env, url } = await serverEnv(dataDir);
    let child = run(env);
    try {
      await waitHealthy(url).catch((err: Error) => {
        throw new Error(`${err.message}: ${child.output()}`);
      });
      const w = await fetch(`${url}/api/v1/content/write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          uri: 'viking://~/memories/entities/kept.md',
          content: 'survives restarts',
          mode: 'create',
          wait: true,
        }),
      });
      expect(w.status).toBe(200);
      // Graceful: shutdown hooks close workers and the store, then re-raise SIGTERM.
      expect(await child.kill('SIGTERM')).toBe('SIGTERM');
      child = run(env);
      await waitHealthy(url);
      const r = await fetch(`${url}/api/v1/content/read?uri=viking://~/memories/entities/kept.md`);
      expect(await r.json()).toEqual({ status: 'ok', result: 'survives restarts' });
      const docs = await fetch(`${url}/docs`);
      expect(docs.status).toBe(200);
      // Another embedder (here another dimension) does not re-embed the stored vectors by itself: the
      // retriever says so at start-up, with the route that does it.
      expect(await child.kill('SIGTERM')).toBe('SIGTERM');
      child = run({ ...env, EMBEDDING_DIM: '256' });
      await waitHealthy(url);
      const warned =
        /(\d+) nodes hold vectors of another embedder than local-hash:v1:256: .*POST \/api\/v1\/content\/reindex/;
      for (let i = 0; i < 100 && !warned.test(child.output()); i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(Number(warned.exec(child.output())?.[1])).toBeGreaterThanOrEqual(1);
    } finally {
      await child.kill('SIGTERM');
    }
  }, 120000);

  it('a second process on the same embedded store refuses to start, naming the folder; the first keeps serving', async () => {
    // PGlite would let both open the folder and keep only one side's writes (docs/architecture.md).
    const shared = mkdtempSync(join(tmpdir(), 'muninn-proc-lock-'));
    const first = await serverEnv(shared, true);
    const owner = run(first.env);
    let second: ReturnType<typeof run> | null = null;
    try {
      await waitHealthy(first.url).catch((err: Error) => {
        throw new Error(`${err.message}: ${owner.output()}`);
      });
      second = run((await serverEnv(shared)).env);
      const stillRunning = new Promise((r) => setTimeout(() => r('still running'), 45_000).unref());
      expect(await Promise.race([second.exited(), stillRunning])).toBe(1);
      expect(second.output()).toContain(`The embedded store in ${join(shared, 'pgdata')} is open in another process`);
      expect(second.output()).toContain('DATABASE_URL');
      const w = await fetch(`${first.url}/api/v1/content/write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          uri: 'viking://~/memories/entities/owner.md',
          content: 'still mine',
          mode: 'create',
          wait: true,
        }),
      });
      expect(w.status).toBe(200);
    } finally {
      await owner.kill('SIGTERM');
      if (second?.child.exitCode === null && second.child.signalCode === null) await second.kill('SIGKILL');
      rmSync(shared, { recursive: true, force: true });
    }
  }, 120000);

  it('a second deployment (another store) on a queue prefix in use refuses to start; it starts once the first stops', async () => {
    // Two deployments sharing queues answered each other's finds from their own stores: searches came back
    // empty every other time, or with the other deployment's memories (docs/operations.md).
    const a = await serverEnv(mkdtempSync(join(tmpdir(), 'muninn-proc-fence-a-')), true);
    // Not seeded: a copy of the same template would be the same store, which the claim lets in.
    const b = await serverEnv(mkdtempSync(join(tmpdir(), 'muninn-proc-fence-b-')));
    const prefix = a.env.MUNINN_QUEUE_PREFIX;
    const fenced = { ...b.env, MUNINN_QUEUE_PREFIX: prefix, MUNINN_QUEUE_FENCE_TTL_MS: '1500' };
    const owner = run({ ...a.env, MUNINN_QUEUE_FENCE_TTL_MS: '1500' });
    let second: ReturnType<typeof run> | null = null;
    try {
      await waitHealthy(a.url).catch((err: Error) => {
        throw new Error(`${err.message}: ${owner.output()}`);
      });
      second = run(fenced);
      const stillRunning = new Promise((r) => setTimeout(() => r('still running'), 45_000).unref());
      expect(await Promise.race([second.exited(), stillRunning])).toBe(1);
      expect(second.output()).toContain(`muninn: the queue prefix '${prefix}' on Redis`);
      expect(second.output()).toContain('in use by another Muninn deployment (another store)');
      expect(second.output()).toContain('MUNINN_QUEUE_PREFIX');
      // The first one never shared its queues: its write is indexed by its own retriever.
      const write = async (url: string, uri: string) =>
        fetch(`${url}/api/v1/content/write`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ uri, content: 'a fenced okapi', mode: 'create', wait: true }),
        });
      expect((await write(a.url, 'viking://resources/a.md')).status).toBe(200);
      await owner.kill('SIGTERM');
      // Once the first is gone its claim lapses within one TTL (released at once on a graceful close).
      second = run(fenced);
      await waitHealthy(b.url).catch((err: Error) => {
        throw new Error(`${err.message}: ${second?.output()}`);
      });
      expect((await write(b.url, 'viking://resources/b.md')).status).toBe(200);
    } finally {
      if (owner.child.exitCode === null && owner.child.signalCode === null) await owner.kill('SIGKILL');
      if (second?.child.exitCode === null && second.child.signalCode === null) await second.kill('SIGTERM');
      rmSync(a.env.MUNINN_DATA_DIR, { recursive: true, force: true });
      rmSync(b.env.MUNINN_DATA_DIR, { recursive: true, force: true });
    }
  }, 150000);

  it('exits with one clear line when its port is taken, after releasing the store folder', async () => {
    const { env } = await serverEnv(mkdtempSync(join(tmpdir(), 'muninn-proc-port-')), true);
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(Number(env.PORT), '127.0.0.1', r));
    try {
      const child = run(env);
      expect(await child.exited()).toBe(1);
      expect(child.output()).toContain(
        `muninn: cannot listen on 127.0.0.1:${env.PORT} (address in use); stop the other server or set PORT`,
      );
      expect(child.output()).not.toContain('    at ');
      // The app was closed before exiting: the next start finds no lock of a process that is gone.
      expect(existsSync(join(env.MUNINN_DATA_DIR, 'pgdata.lock'))).toBe(false);
    } finally {
      await new Promise((r) => taken.close(r));
      rmSync(env.MUNINN_DATA_DIR, { recursive: true, force: true });
    }
  }, 120000);
});

// docs/architecture.md, "A job that kills its worker", in one standalone process on its embedded store with the
// in-process queue: a file whose indexing kills the process would kill the whole server at every relay pass. The
// server is started again after each death; the batch's other files become searchable, the file is set aside, and
// the run after the hold indexes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppProcess, buildDist, freePort, seedFromPgliteTemplate, startAppProcess, waitHealthy } from '@app/testing';
import { crashEnv, Deployment, Embeddings, killer, poisonedBatch, startEmbeddings } from './index-crash-support';

describe('an index job that takes the whole server down (one standalone process, embedded store, in-process queue)', () => {
  let dir: string;
  let embeddings: Embeddings;
  let env: Record<string, string>;
  let server: AppProcess;
  let d: Deployment;
  const k = killer(() => d);

  beforeAll(async () => {
    buildDist();
    dir = mkdtempSync(join(tmpdir(), 'muninn-crash-'));
    await seedFromPgliteTemplate(join(dir, 'pgdata'));
    embeddings = await startEmbeddings(k.onPoison);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    env = {
      // The in-process queue keeps a finished job's id for 60 s (its waiters look it up), so the relay's add of the
      // held file's job is a no-op until then: a hold past that, as any real one is.
      ...crashEnv(embeddings, 61_000),
      PORT: String(port),
      MUNINN_DATA_DIR: dir,
      MUNINN_TRANSPORT: 'inprocess',
      REDIS_URL: 'redis://127.0.0.1:1',
    };
    server = startAppProcess('standalone', env);
    d = {
      url,
      worker: () => server,
      restart: async () => {
        await server.kill('SIGKILL');
        server = startAppProcess('standalone', env);
      },
    };
    await waitHealthy(url, 90_000);
  }, 240_000);

  afterAll(async () => {
    await k.settle();
    await server?.kill('SIGKILL');
    embeddings?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('restarted after each death, it indexes the other files, sets the file aside, and indexes it after the hold', async () => {
    await poisonedBatch(d, embeddings, k, false);
  }, 300_000);
});

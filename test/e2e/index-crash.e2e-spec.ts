// docs/architecture.md, "A job that kills its worker": a write whose indexing takes its retriever down is split per
// file, the file that does it runs alone, and once it died alone it is set aside instead of taking down one retriever
// after another; the batch's other files become searchable, and the file is indexed by a run after the hold. Real
// gateway and retriever processes, BullMQ on Redis, PostgreSQL (two processes share the store).
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  deletePrefix,
  freePort,
  startAppProcess,
  TestDatabase,
  uniqueTestPrefix,
  waitConsumers,
  waitHealthy,
} from '@app/testing';
import { crashEnv, Deployment, Embeddings, killer, poisonedBatch, startEmbeddings } from './index-crash-support';

const PG = process.env.MUNINN_TEST_DATABASE_URL;

(PG ? describe : describe.skip)(
  'an index job that takes its retriever down (gateway and retriever, PostgreSQL)',
  () => {
    let db: TestDatabase;
    let embeddings: Embeddings;
    let env: Record<string, string>;
    let gateway: AppProcess;
    let retriever: AppProcess;
    const prefix = uniqueTestPrefix();
    let d: Deployment;
    const k = killer(() => d);

    beforeAll(async () => {
      buildDist();
      db = await createTestDatabase(PG as string);
      embeddings = await startEmbeddings(k.onPoison);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      env = {
        ...crashEnv(embeddings, 15_000),
        PORT: String(port),
        DATABASE_URL: db.url,
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        MUNINN_QUEUE_PREFIX: prefix,
      };
      gateway = startAppProcess('gateway', env);
      retriever = startAppProcess('retriever', env);
      d = {
        url,
        worker: () => retriever,
        restart: async () => {
          await retriever.kill('SIGKILL');
          retriever = startAppProcess('retriever', env);
        },
        entries: () =>
          db.query('SELECT uris, held_at IS NOT NULL AS held, open_runs, alone_runs FROM index_outbox ORDER BY id'),
      };
      await waitHealthy(url);
      await waitConsumers(url, ['find', 'index']);
    }, 240_000);

    afterAll(async () => {
      await k.settle();
      await Promise.all([gateway, retriever].map((p) => p?.kill('SIGKILL')));
      embeddings?.close();
      await db?.drop();
      await deletePrefix(env.REDIS_URL, prefix);
    });

    it('splits the write, indexes its other files, sets the file aside once it died alone, and indexes it after the hold', async () => {
      await poisonedBatch(d, embeddings, k, true);
    }, 300_000);
  },
);

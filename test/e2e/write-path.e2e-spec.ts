import { QueueName } from '@app/contracts';
import { JobBus } from '@app/queue';
import { Identity } from '@app/kernel';
import {
  bulkInsertIndexed,
  Db,
  DELETE_STEP,
  insertOutbox,
  NodeIndexRepository,
  OutboxRepository,
  STORE_DB,
  writeNodes,
} from '@app/store';
import { INDEX_CHUNK } from '../../apps/retriever/src/index/index.service';
import { deletePrefix, startTestApp, storeModes, TestApp, eventually, uniqueTestPrefix } from '@app/testing';

const WRITE = '/api/v1/content/write';
const BATCH = '/api/v1/content/batch-write';

describe.each(storeModes())('write path (store: %s)', (store) => {
  let app: TestApp;
  const found = async (token: string, uri: string) => {
    const r = await app.request('POST', '/api/v1/search/find', {
      body: { query: token, target_uri: 'viking://resources', limit: 5 },
    });
    return (r.body.result?.resources ?? []).some((h: { uri: string }) => h.uri === uri);
  };
  const ls = async (uri: string) =>
    (await app.request('GET', `/api/v1/fs/ls?uri=${encodeURIComponent(uri)}&simple=true`)).body.result ?? [];
  const overview = async (uri: string) =>
    (await app.request('GET', `/api/v1/content/overview?uri=${encodeURIComponent(uri)}`)).body.result as string;

  beforeAll(async () => {
    app = await startTestApp({
      store,
      env: { MUNINN_OUTBOX_GRACE_MS: '300', MUNINN_OUTBOX_POLL_MS: '100', MUNINN_SIDECAR_INTERVAL_MS: '200' },
    });
  }, 60_000);
  afterAll(() => app?.close());

  (store === 'postgres' ? it : it.skip)(
    'a write racing a recursive delete of its directory leaves no file without its directory',
    async () => {
      const dir = 'viking://resources/race-dir';
      const seed = await app.request('POST', WRITE, {
        body: { uri: `${dir}/seed.md`, content: 'seed', mode: 'create' },
      });
      expect(seed.status).toBe(200);
      const db = app.nest.get<Db>(STORE_DB);
      const who: Identity = { accountId: 'default', userId: 'default', role: 'root', actorPeerId: null };
      // A write that has made (found) its directories and inserted its file, and has not committed yet.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let wrote!: () => void;
      const written = new Promise<void>((r) => (wrote = r));
      const writing = db.transaction(async (tx) => {
        await writeNodes(tx, who, [{ uri: `${dir}/late.md`, content: 'late', mode: 'create' }]);
        wrote();
        await held;
      });
      await written;
      let deleted = false;
      const deleting = app
        .request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(dir)}&recursive=true`)
        .finally(() => (deleted = true));
      const lockWaits = async () =>
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
          )
        ).rows[0]!.n;
      // The delete finishes at once (nothing held its directory) or waits for the write's hold on it.
      await eventually(async () => deleted || (await lockWaits()) > 0, 10_000);
      release();
      await writing;
      expect((await deleting).status).toBe(200);
      const stat = async (uri: string) =>
        (await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(uri)}`)).status;
      // Before, the delete committed first and the write's file stayed, under a directory that was gone.
      expect([await stat(dir), await stat(`${dir}/late.md`)]).toEqual([404, 404]);
    },
  );

  it("an entry split per file is still pending for a retry's wait until the entries made of it are indexed", async () => {
    // A retry of a write whose wait ran out (504) waits on the store when the job is gone (a split fails it, and
    // BullMQ removes it): the split deleted the entry, and the resumed answer said `complete` at once.
    const db = app.nest.get<Db>(STORE_DB);
    const outbox = app.nest.get(OutboxRepository);
    const uris = ['viking://resources/split/a.md', 'viking://resources/split/b.md'];
    // Due in an hour: the relay leaves these entries alone while the case runs.
    const entry = await db.transaction((tx) => insertOutbox(tx, 'default', 'upsert', uris, 3_600_000));
    expect(await outbox.pending(entry.outboxId)).toBe(true);
    expect(await outbox.split(entry, 3_600_000)).toBe(2);
    expect(await outbox.pending(entry.outboxId)).toBe(true);
    const parts = await db.query<{ id: string }>('SELECT id FROM index_outbox WHERE uris && $1::text[] ORDER BY id', [
      uris,
    ]);
    expect(parts.rows).toHaveLength(2);
    await db.query('DELETE FROM index_outbox WHERE id = $1', [parts.rows[0]!.id]);
    expect(await outbox.pending(entry.outboxId)).toBe(true);
    await db.query('DELETE FROM index_outbox WHERE id = $1', [parts.rows[1]!.id]);
    expect(await outbox.pending(entry.outboxId)).toBe(false);
  });

  it('a directory made with a description keeps it: its abstract and the head of its overview, after a child and a move', async () => {
    const dir = 'viking://resources/described';
    const description = 'Travel plans for the spring: trains, hostels and the itinerary.';
    const idle = async () =>
      expect((await app.request('POST', '/api/v1/system/wait', { body: { timeout: 30 } })).status).toBe(200);
    const abstract = async (uri: string) =>
      (await app.request('GET', `/api/v1/content/abstract?uri=${encodeURIComponent(uri)}`)).body.result as string;
    expect((await app.request('POST', '/api/v1/fs/mkdir', { body: { uri: dir, description } })).status).toBe(200);
    // The directory's own index job refreshes its summary at once: it wrote "described: 0 items" over the description.
    await idle();
    expect(await abstract(dir)).toBe(description);
    expect((await overview(dir)).startsWith(`${description}\n\n`)).toBe(true);
    const child = {
      uri: `${dir}/lisbon.md`,
      content: 'Lisbon: three nights near the river.',
      mode: 'create',
      wait: true,
    };
    expect((await app.request('POST', WRITE, { body: child })).status).toBe(200);
    await idle();
    await eventually(async () => (await overview(dir)).includes('lisbon.md'), 10_000);
    expect(await abstract(dir)).toBe(description);
    const to = 'viking://resources/described-moved';
    expect((await app.request('POST', '/api/v1/fs/mv', { body: { from_uri: dir, to_uri: to } })).status).toBe(200);
    await idle();
    await eventually(async () => (await abstract(to)) === description, 10_000);
    expect((await overview(to)).startsWith(`${description}\n\n`)).toBe(true);
  });

  it("an index job touches only its own account's outbox entry, whatever its id", async () => {
    // A job left in Redis from before the store was restored names an id another account's entry now has: before,
    // it counted that entry's runs, split or held it, and deleted it once done (unsearchable, never relayed).
    const db = app.nest.get<Db>(STORE_DB);
    const outbox = app.nest.get(OutboxRepository);
    const theirs = await db.transaction((tx) =>
      insertOutbox(tx, 'another-account', 'upsert', ['viking://resources/theirs.md'], 3_600_000),
    );
    const stale = { accountId: 'default', outboxId: theirs.outboxId };
    expect(await outbox.beginRun(stale)).toBeNull();
    await outbox.beginAlone(stale);
    expect(await outbox.hold(stale, 1000, 1)).toBeNull();
    expect(await outbox.split(stale, 1000)).toBe(0);
    await app.nest.get(NodeIndexRepository).finishOutbox(stale);
    const left = await db.query<{ open_runs: number; alone_runs: number; held: boolean }>(
      'SELECT open_runs, alone_runs, held_at IS NOT NULL AS held FROM index_outbox WHERE id = $1',
      [theirs.outboxId],
    );
    expect(left.rows).toEqual([{ open_runs: 0, alone_runs: 0, held: false }]);
    expect(await outbox.beginRun(theirs)).toMatchObject({ crashes: 0, files: 1 });
    await app.nest.get(NodeIndexRepository).finishOutbox(theirs);
    expect(await outbox.pending(theirs.outboxId)).toBe(false);
  });

  it('batch-write is all or nothing: one failing operation leaves none of the others stored', async () => {
    const root = 'viking://resources/atomic';
    const r = await app.request('POST', BATCH, {
      body: {
        root_uri: root,
        operations: [
          { uri: `${root}/a.md`, content: 'first', mode: 'create' },
          { uri: `${root}/b.md`, content: 'second', mode: 'create' },
          { uri: `${root}/missing.md`, content: 'third', mode: 'replace' },
        ],
      },
    });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect((await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(`${root}/a.md`)}`)).status).toBe(404);
    expect((await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(root)}`)).status).toBe(404);
  });

  it('a moved subtree of 600 files is indexed in steps of INDEX_CHUNK, every file searchable at its new place', async () => {
    // One outbox entry names every moved file; as one read, embedder call and UPDATE it ran past the statement
    // timeout for a few thousand files, and the moved files never became searchable.
    const from = 'viking://resources/move-big';
    const to = 'viking://resources/moved-big';
    for (let b = 0; b < 3; b++) {
      const operations = Array.from({ length: 200 }, (_, i) => ({
        uri: `${from}/d${b}/n${i}.md`,
        content: `moved note ${b}-${i} mentions quokka${b * 200 + i}`,
        mode: 'create',
      }));
      expect((await app.request('POST', BATCH, { body: { root_uri: from, operations, wait: true } })).status).toBe(200);
    }
    const repo = app.nest.get(NodeIndexRepository, { strict: false });
    const stores = jest.spyOn(repo, 'storeFileIndexes');
    try {
      const mv = await app.request('POST', '/api/v1/fs/mv', { body: { from_uri: from, to_uri: to } });
      expect(mv.status).toBe(200);
      const db = app.nest.get<Db>(STORE_DB);
      const pending = async () =>
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM nodes WHERE uri LIKE $1 AND kind = 'file' AND (indexed_at IS NULL OR embedding IS NULL)`,
            [`${to}/%`],
          )
        ).rows[0]!.n;
      await eventually(async () => (await pending()) === 0, { ms: 60_000 });
      const steps = stores.mock.calls.filter(([, files]) => files.some((f) => f.uri.startsWith(`${to}/`)));
      expect(steps.map(([, files]) => files.length)).toEqual([INDEX_CHUNK, INDEX_CHUNK, 600 - 2 * INDEX_CHUNK]);
    } finally {
      stores.mockRestore();
    }
    expect(await found('quokka437', `${to}/d2/n37.md`)).toBe(true);
  });

  it('a recursive delete of more nodes than one DELETE_STEP removes them all, in one request', async () => {
    const root = 'viking://resources/delete-big';
    const db = app.nest.get<Db>(STORE_DB);
    const n = DELETE_STEP + 400;
    const node = (uri: string, kind: 'file' | 'directory') => ({
      uri,
      kind,
      content: kind === 'file' ? `note ${uri}` : '',
      abstract: '',
      searchText: kind === 'file' ? `note wallaby ${uri}` : '',
      embedding: null,
    });
    await bulkInsertIndexed(db, 'default', [node(root, 'directory')], null);
    for (let at = 0; at < n; at += 500)
      await bulkInsertIndexed(
        db,
        'default',
        Array.from({ length: Math.min(500, n - at) }, (_, i) => node(`${root}/f${at + i}.md`, 'file')),
        null,
      );
    const r = await app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(root)}&recursive=true`);
    expect([r.status, r.body.result?.estimated_deleted_count]).toEqual([200, n + 1]);
    const left = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM nodes WHERE account_id = 'default' AND (uri = $1 OR uri LIKE $2)`,
      [root, `${root}/%`],
    );
    expect(left.rows[0]!.n).toBe(0);
    // The lexeme counts went down with every step.
    const df = await db.query<{ n: string | null }>(
      `SELECT sum(delta)::text AS n FROM term_df WHERE account_id = 'default' AND lexeme = 'wallabi'`,
    );
    expect(Number(df.rows[0]!.n ?? 0)).toBe(0);
  });

  it('concurrent creates of one new file: exactly one wins, every other gets 409', async () => {
    const uri = 'viking://resources/race/one.md';
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.request('POST', WRITE, { body: { uri, content: `writer ${i}`, mode: 'create' } }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.result;
    expect(winner.created).toBe(true);
    const read = await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`);
    expect(read.body.result).toMatch(/^writer \d$/);
  });

  it('reports real state: unchanged content is neither written nor re-indexed; changes are', async () => {
    const root = 'viking://resources/state';
    const ops = [
      { uri: `${root}/same.md`, content: 'kept as it is', mode: 'upsert' },
      { uri: `${root}/new.md`, content: 'brand new', mode: 'upsert' },
    ];
    const first = await app.request('POST', BATCH, { body: { root_uri: root, operations: ops } });
    expect(first.status).toBe(200);
    expect(first.body.result).toMatchObject({
      created: [`${root}/same.md`, `${root}/new.md`],
      updated: [],
      unchanged: [],
      vector_status: 'complete',
    });
    const second = await app.request('POST', BATCH, {
      body: { root_uri: root, operations: [ops[0], { ...ops[1], content: 'changed body' }] },
    });
    expect(second.body.result).toMatchObject({
      created: [],
      updated: [`${root}/new.md`],
      unchanged: [`${root}/same.md`],
      vector_status: 'complete',
    });
    const again = await app.request('POST', WRITE, {
      body: { uri: `${root}/same.md`, content: 'kept as it is', wait: true },
    });
    expect(again.body.result).toMatchObject({
      content_updated: false,
      vector_status: 'skipped',
      semantic_status: 'skipped',
      queue_status: null,
    });
    const changed = await app.request('POST', WRITE, {
      body: { uri: `${root}/same.md`, content: ' and more', mode: 'append', wait: true },
    });
    expect(changed.body.result).toMatchObject({ content_updated: true, vector_status: 'complete' });
    expect(['complete', 'deferred']).toContain(changed.body.result.semantic_status);
    const queued = await app.request('POST', WRITE, {
      body: { uri: `${root}/same.md`, content: ' once more', mode: 'append' },
    });
    expect(queued.body.result).toMatchObject({
      content_updated: true,
      vector_status: 'queued',
      semantic_status: 'queued',
    });
  });

  it('a write whose enqueue fails after the commit is answered, stored, and indexed by the outbox relay', async () => {
    const bus = app.nest.get(JobBus);
    const original = bus.enqueue.bind(bus);
    let refused = 0;
    bus.enqueue = (async (queue: QueueName, data: never, opts?: object) => {
      if (queue === QueueName.Index && refused === 0) {
        refused += 1;
        throw new Error('simulated loss between commit and enqueue');
      }
      return original(queue, data, opts);
    }) as JobBus['enqueue'];
    try {
      const uri = 'viking://resources/outbox/lost.md';
      const r = await app.request('POST', WRITE, {
        body: { uri, content: 'the quixotic zebrafinch ledger', mode: 'create' },
      });
      expect(r.status).toBe(200);
      expect(r.body.result.vector_status).toBe('queued');
      expect(refused).toBe(1);
      await eventually(() => found('zebrafinch', uri));
    } finally {
      bus.enqueue = original;
    }
    const db = app.nest.get<Db>(STORE_DB);
    await eventually(
      async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_outbox')).rows[0].n === 0,
    );
  });

  it('a wait:true write whose enqueue fails still waits for the relay to index it', async () => {
    const bus = app.nest.get(JobBus);
    const original = bus.enqueue.bind(bus);
    let refused = 0;
    bus.enqueue = (async (queue: QueueName, data: never, opts?: object) => {
      if (queue === QueueName.Index && refused++ === 0) throw new Error('simulated queue outage');
      return original(queue, data, opts);
    }) as JobBus['enqueue'];
    try {
      const uri = 'viking://resources/outbox/waited.md';
      const r = await app.request('POST', WRITE, {
        body: { uri, content: 'a gravimetric pelican survey', mode: 'create', wait: true },
      });
      expect(r.status).toBe(200);
      expect(r.body.result.vector_status).toBe('complete');
      expect(await found('pelican', uri)).toBe(true);
    } finally {
      bus.enqueue = original;
    }
  });

  it('coalesces summary refreshes of a busy directory and still ends with every child listed', async () => {
    const dir = 'viking://resources/busy';
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        app.request('POST', WRITE, {
          body: { uri: `${dir}/f${i}.md`, content: `file number ${i}`, mode: 'create', wait: true },
        }),
      ),
    );
    expect(answers.every((a) => a.status === 200 && a.body.result.vector_status === 'complete')).toBe(true);
    expect(answers.some((a) => a.body.result.semantic_status === 'deferred')).toBe(true);
    await eventually(async () => (await overview(dir)).includes('24 items in'));
    expect((await ls(dir)).length).toBe(24);
  });

  it("summarises a directory's children (date span, shared words) before listing them", async () => {
    const dir = 'viking://resources/trips';
    const files = {
      '2023-05-08-lake.md': 'Camping at the lake with the kids, pitched the tent by the water.',
      '2023-07-17-forest.md': 'Camping in the forest; the kids roasted marshmallows.',
      '2023-06-01-budget.md': 'Quarterly budget review with finance.',
    };
    for (const [name, content] of Object.entries(files)) {
      const r = await app.request('POST', WRITE, {
        body: { uri: `${dir}/${name}`, content, mode: 'create', wait: true },
      });
      expect(r.status).toBe(200);
    }
    await eventually(async () => (await overview(dir)).includes('3 items in'));
    const text = await overview(dir);
    expect(text).toContain('Dates: 2023-05-08 to 2023-07-17.');
    expect(text).toMatch(/Topics: (camping, kids|kids, camping)/);
    expect(text.indexOf('Topics:')).toBeLessThan(text.indexOf('- 2023-05-08-lake.md'));
  });

  it('summarises a directory larger than the children a summary reads, with the true count', async () => {
    const dir = 'viking://resources/large';
    for (let b = 0; b < 2; b++) {
      const operations = Array.from({ length: 225 }, (_, k) => ({
        uri: `${dir}/n${String(b * 225 + k).padStart(4, '0')}.md`,
        content: `note ${b * 225 + k}`,
        mode: 'create',
      }));
      const r = await app.request('POST', BATCH, { body: { root_uri: dir, operations } });
      expect(r.status).toBe(200);
      expect(r.body.result.created).toHaveLength(225);
    }
    await eventually(async () => (await overview(dir)).includes('450 items in'));
    expect(await overview(dir)).toMatch(/- … and \d+ more/);
  });

  it('a large directory reuses its count for a few seconds, then counts again without another write', async () => {
    // docs/architecture.md#write-path: the count of a directory past the children a summary reads is
    // remembered briefly; a refresh within that time uses it and schedules the one that counts again.
    const dir = 'viking://resources/large-recount';
    for (let b = 0; b < 2; b++) {
      const operations = Array.from({ length: 205 }, (_, k) => ({
        uri: `${dir}/n${String(b * 205 + k).padStart(4, '0')}.md`,
        content: `note ${b * 205 + k}`,
        mode: 'create',
      }));
      const r = await app.request('POST', BATCH, { body: { root_uri: dir, operations } });
      expect(r.status).toBe(200);
    }
    await eventually(async () => (await overview(dir)).includes('410 items in'));
    const one = await app.request('POST', '/api/v1/content/write', {
      body: { uri: `${dir}/z-late.md`, content: 'one more', mode: 'create', wait: true },
    });
    expect(one.status).toBe(200);
    await eventually(async () => (await overview(dir)).includes('411 items in'));
  });

  it('a deleted directory takes its summary schedule with it', async () => {
    const db = app.nest.get<Db>(STORE_DB);
    const dir = 'viking://resources/gone-soon';
    const w = await app.request('POST', '/api/v1/content/write', {
      body: { uri: `${dir}/inner/a.md`, content: 'soon gone', mode: 'create', wait: true },
    });
    expect(w.status).toBe(200);
    const states = async () =>
      (
        await db.query<{ uri: string }>(`SELECT uri FROM sidecar_state WHERE uri = $1 OR uri LIKE $2 ORDER BY uri`, [
          dir,
          `${dir}/%`,
        ])
      ).rows.map((r) => r.uri);
    expect(await states()).toEqual([dir, `${dir}/inner`]);
    const rm = await app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(dir)}&recursive=true`);
    expect(rm.status).toBe(200);
    expect(await states()).toEqual([]);
  });

  it('one batch into several branches: their common ancestor lists every branch with its summary', async () => {
    // One index job for all files: each new directory's summary must reach the shared ancestor, not only
    // the first branch's (a session commit writes entities/, events/2026/12/02/ and preferences/ at once).
    const root = 'viking://resources/branches';
    const files = {
      'zeta/inner/deeper/one.md': 'kestrels hover over the meadow',
      'alpha/two.md': 'herons wait in the shallows',
      'mid/x/three.md': 'swifts sleep on the wing',
    };
    const r = await app.request('POST', BATCH, {
      body: {
        root_uri: root,
        operations: Object.entries(files).map(([path, content]) => ({
          uri: `${root}/${path}`,
          content,
          mode: 'create',
        })),
        wait: true,
      },
    });
    expect(r.status).toBe(200);
    // No later write or deferred job is needed: the batch's own index job leaves the ancestor complete.
    const text = await overview(root);
    expect(text).toContain('3 items in');
    for (const [branch, word] of [
      ['alpha', 'herons'],
      ['mid', 'swifts'],
      ['zeta', 'kestrels'],
    ])
      expect([branch, text.includes(`- ${branch}/: ${branch}: 1 item`) && text.includes(word)]).toEqual([branch, true]);
  });

  it('a deep path: every new directory on the way gets a summary', async () => {
    // Deeper than the 16 levels one index job refreshes inline, within MUNINN_URI_MAX_DEPTH (32).
    const segs = Array.from({ length: 26 }, (_, i) => `d${i}`).join('/');
    const uri = `viking://resources/deep/${segs}/leaf.md`;
    const r = await app.request('POST', WRITE, { body: { uri, content: 'a deep leaf', mode: 'create', wait: true } });
    expect(r.status).toBe(200);
    await eventually(async () => (await overview('viking://resources/deep')).includes('d0/'));
  });
});

describe.each(storeModes())('write path across store lifetimes (store: %s)', (store) => {
  it('a new store on a Redis that still holds the old store’s finished index jobs: every write is indexed', async () => {
    // Index job ids are derived from the outbox entry, so a writer's enqueue and the relay's name the same job.
    // A fresh store (a wiped data folder, a new database) numbers its entries from 1 again; finished jobs of the
    // old store kept under those ids made each new add a no-op, and `wait:true` reported the old job's result.
    const prefix = uniqueTestPrefix('lifetimes');
    const write = async (app: TestApp, uri: string, content: string) => {
      const r = await app.request('POST', WRITE, { body: { uri, content, mode: 'create', wait: true } });
      expect(r.status).toBe(200);
      expect(r.body.result.vector_status).toBe('complete');
    };
    const first = await startTestApp({ store, env: { MUNINN_QUEUE_PREFIX: prefix } });
    for (let i = 0; i < 3; i++) await write(first, `viking://resources/old-${i}.md`, `old note ${i}`);
    await first.close();
    const second = await startTestApp({ store, env: { MUNINN_QUEUE_PREFIX: prefix } });
    try {
      await write(second, 'viking://resources/fresh.md', 'a fresh axolotl note');
      const r = await second.request('POST', '/api/v1/search/find', {
        body: { query: 'axolotl', target_uri: 'viking://resources', limit: 5 },
      });
      const files = (r.body.result.resources as { uri: string }[]).map((h) => h.uri).filter((u) => !u.includes('/.'));
      expect(files).toEqual(['viking://resources/fresh.md']);
    } finally {
      await second.close();
      await deletePrefix(second.config.redis.url, prefix);
    }
  }, 120_000);
});

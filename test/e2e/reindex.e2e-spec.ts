import { EMBEDDER, Embedder } from '@app/embed';
import { Db, STORE_DB } from '@app/store';
import { startTestApp, TestApp } from '@app/testing';

describe('POST /api/v1/content/reindex', () => {
  let app: TestApp;
  let db: Db;

  beforeAll(async () => {
    app = await startTestApp({});
    db = app.nest.get<Db>(STORE_DB);
    for (const [name, text] of [
      ['a', 'Keeps bees on the roof.'],
      ['b', 'Collects vintage fountain pens.'],
    ]) {
      await app.request('POST', '/api/v1/content/write', {
        body: { uri: `viking://~/memories/entities/${name}.md`, content: text, mode: 'create', wait: true },
      });
    }
  });

  afterAll(() => app.close());

  it('re-embeds a subtree written by another embedder, with the current one', async () => {
    const current = app.nest.get<Embedder>(EMBEDDER).id;
    // What switching embedders leaves behind: vectors from a model this process does not run.
    await db.query(
      `UPDATE nodes SET embedder_id = 'old-model:v0', embedding = NULL WHERE uri LIKE 'viking://user/default/memories%'`,
    );
    const r = await app.request('POST', '/api/v1/content/reindex', {
      body: { uri: 'viking://~/memories', wait: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      uri: 'viking://user/default/memories',
      status: 'completed',
      object_type: 'directory',
      scanned_records: 4,
      rebuilt_records: 4,
      failed_records: 0,
    });
    const { rows } = await db.query<{ embedder_id: string; has: boolean }>(
      `SELECT embedder_id, embedding IS NOT NULL AS has FROM nodes WHERE uri LIKE 'viking://user/default/memories/entities/%'`,
    );
    expect(rows).toEqual([
      { embedder_id: current, has: true },
      { embedder_id: current, has: true },
    ]);
    const find = await app.request('POST', '/api/v1/search/find', { body: { query: 'beekeeping on the roof' } });
    expect(find.body.result.memories[0].uri).toBe('viking://user/default/memories/entities/a.md');
  });

  it('refuses what the caller may not change and what does not exist', async () => {
    expect(
      (await app.request('POST', '/api/v1/content/reindex', { body: { uri: 'viking://~/nothing-here' } })).status,
    ).toBe(404);
    expect(
      (await app.request('POST', '/api/v1/content/reindex', { body: { uri: 'viking://~/memories', bogus: 1 } })).status,
    ).toBe(400);
    // Nobody, not even a dev-mode root, writes the viking:// root itself.
    const root = await app.request('POST', '/api/v1/content/reindex', { body: { uri: 'viking://' } });
    expect(root.status).toBe(403);
    expect(root.body.error.code).toBe('PERMISSION_DENIED');
  });

  it('can answer at once and leave the work queued', async () => {
    const r = await app.request('POST', '/api/v1/content/reindex', {
      body: { uri: 'viking://~/memories/entities/b.md', wait: false },
    });
    expect(r.body.result).toMatchObject({ status: 'accepted', scanned_records: 1 });
  });
});

describe('POST /api/v1/content/reindex: a subtree over MUNINN_REINDEX_MAX_NODES', () => {
  let app: TestApp;
  let db: Db;

  beforeAll(async () => {
    app = await startTestApp({ env: { MUNINN_REINDEX_MAX_NODES: '1000' } });
    db = app.nest.get<Db>(STORE_DB);
    // 1,000 files under big/ (four batches), ten of them in big/part: with big itself, 1,001 nodes.
    for (let b = 0; b < 4; b++) {
      const operations = Array.from({ length: 250 }, (_, i) => {
        const n = b * 250 + i;
        const dir = n < 10 ? 'big/part' : 'big';
        return {
          uri: `viking://resources/${dir}/f${String(n).padStart(4, '0')}.md`,
          content: `file ${n}`,
          mode: 'create',
        };
      });
      const w = await app.request('POST', '/api/v1/content/batch-write', {
        body: { root_uri: 'viking://resources/big', operations },
      });
      expect(w.status).toBe(200);
    }
  }, 120_000);

  afterAll(() => app.close());

  it('is refused naming uri, with nothing queued (the rest past a silent cap was never queued); a part of it is reindexed', async () => {
    const r = await app.request('POST', '/api/v1/content/reindex', {
      body: { uri: 'viking://resources/big', wait: false },
    });
    expect([r.status, r.body.error?.details]).toEqual([
      400,
      expect.objectContaining({ field: 'uri', limit: 'reindex_nodes', max: 1000 }),
    ]);
    expect(r.body.error.message).toContain('MUNINN_REINDEX_MAX_NODES');
    const queued = await db.query(`SELECT 1 FROM index_outbox WHERE reindex_root = 'viking://resources/big'`);
    expect(queued.rows).toEqual([]);
    const part = await app.request('POST', '/api/v1/content/reindex', {
      body: { uri: 'viking://resources/big/part', wait: true },
    });
    expect([part.status, part.body.result?.scanned_records, part.body.result?.failed_records]).toEqual([200, 11, 0]);
  });
});

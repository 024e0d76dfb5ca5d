import { Db, STORE_DB } from '@app/store';
import { startTestApp, storeModes, TestApp } from '@app/testing';

/** fs stat reports real state: `isLocked` while index work on the path (or below it) is pending. */
describe.each(storeModes())('fs stat state (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  const file = 'viking://resources/state/guide.md';
  const stat = async (uri: string) =>
    (await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(uri)}`)).body.result;

  beforeAll(async () => {
    app = await startTestApp({ store });
    db = app.nest.get<Db>(STORE_DB);
    const w = await app.request('POST', '/api/v1/content/write', {
      body: { uri: file, content: '# Guide\n\nSteps.', mode: 'create', wait: true },
    });
    expect(w.status).toBe(200);
    const sibling = await app.request('POST', '/api/v1/content/write', {
      body: { uri: 'viking://resources/state-x/note.md', content: 'Sibling.', mode: 'create', wait: true },
    });
    expect(sibling.status).toBe(200);
  });

  afterAll(() => app.close());

  it('is unlocked once indexed, locked while an outbox entry on the path or below it is pending', async () => {
    expect(await stat(file)).toMatchObject({ isLocked: false, isDir: false });
    expect(await stat('viking://resources/state')).toMatchObject({ isLocked: false, isDir: true });
    // A pending entry the relay will not pick up for an hour stands for index work in flight.
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO index_outbox (account_id, op, uris, due_at) VALUES ('default', 'upsert', $1, now() + interval '1 hour') RETURNING id`,
      [[file]],
    );
    try {
      expect(await stat(file)).toMatchObject({ isLocked: true });
      expect(await stat('viking://resources/state')).toMatchObject({ isLocked: true });
      expect(await stat('viking://resources')).toMatchObject({ isLocked: true });
      // A sibling whose name merely starts with the same characters is not below the path.
      expect(await stat('viking://resources/state-x')).toMatchObject({ isLocked: false });
    } finally {
      await db.query('DELETE FROM index_outbox WHERE id = $1', [rows[0].id]);
    }
    expect(await stat(file)).toMatchObject({ isLocked: false });
  });
});

import { Db, readUsage, SessionTaskRepository, STORE_DB } from '@app/store';
import { startTestApp, storeModes, TestApp } from '@app/testing';
import { eventually } from './sessions-support';
import { countedUsage } from './usage-support';

const MEM = 'viking://user/default/memories/used';

/** `POST /sessions/{id}/used`: persisted usage records, consumed into `active_count` by the next commit. */
describe.each(storeModes())('sessions: usage records (POST …/used) [%s]', (store) => {
  let app: TestApp;
  let db: Db;
  const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
    app.request('POST', path, { body: body ?? {}, headers });
  const activeCount = async (uri: string) =>
    (await db.query<{ active_count: number }>('SELECT active_count FROM nodes WHERE uri = $1', [uri])).rows[0]
      ?.active_count;
  const openRecords = async (sid: string) =>
    Number(
      (
        await db.query<{ n: string }>(
          'SELECT count(*) AS n FROM session_usage WHERE session_id = $1 AND consumed_by IS NULL',
          [sid],
        )
      ).rows[0].n,
    );
  const commitAndWait = async (sid: string) => {
    await post(`/api/v1/sessions/${sid}/messages`, { role: 'user', content: 'I used the notes on Kestrel.' });
    const c = (await post(`/api/v1/sessions/${sid}/commit`)).body.result;
    expect(c.status).toBe('accepted');
    return eventually(async () => {
      const r = (await app.request('GET', `/api/v1/tasks/${c.task_id}`)).body.result;
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });
  };

  beforeAll(async () => {
    app = await startTestApp({
      store,
      env: {
        MUNINN_URI_LIST_MAX_ITEMS: '5',
        MUNINN_MESSAGE_MAX_CHARS: '1000',
        MUNINN_SESSION_MAX_USAGE_RECORDS: '100',
      },
    });
    db = app.nest.get<Db>(STORE_DB);
    for (const name of ['a.md', 'b.md']) {
      const w = await post('/api/v1/content/write', {
        uri: `${MEM}/${name}`,
        content: `notes ${name}`,
        mode: 'create',
      });
      expect(w.status).toBe(200);
    }
  }, 60_000);
  afterAll(() => app?.close());

  it('records usage, the next commit counts it once into active_count; a commit without new usage reports 0', async () => {
    expect((await post('/api/v1/sessions', { session_id: 'u1' })).status).toBe(200);
    const r = await post(
      '/api/v1/sessions/u1/used',
      {
        contexts: [`${MEM}/a.md`, 'viking://~/memories/used/a.md', `${MEM}/b.md`, `${MEM}/missing.md`],
        skill: { uri: 'viking://~/skills/search', input: 'q', output: 'ok', success: false },
        wait: true,
      },
      // Session routes ignore the actor-peer header, even a malformed one.
      { 'x-openviking-actor-peer': '../bad' },
    );
    expect([r.status, r.body.result]).toEqual([200, { session_id: 'u1', contexts_used: 4, skills_used: 1 }]);
    expect(await openRecords('u1')).toBe(5);

    const t = await commitAndWait('u1');
    expect(t.status).toBe('completed');
    // 5 records; a.md (twice) and b.md exist and are the user's; missing.md and the skill have no node.
    expect([t.result.usage_events_extracted, t.result.active_count_updated]).toEqual([5, 2]);
    expect(await activeCount(`${MEM}/a.md`)).toBe(2);
    expect(await activeCount(`${MEM}/b.md`)).toBe(1);
    expect(await openRecords('u1')).toBe(0);

    const again = await commitAndWait('u1');
    expect([again.result.usage_events_extracted, again.result.active_count_updated]).toEqual([0, 0]);
    expect(await activeCount(`${MEM}/a.md`)).toBe(2);
  });

  it('a session holds at most MUNINN_SESSION_MAX_USAGE_RECORDS records until a commit consumes (deletes) them', async () => {
    await post('/api/v1/sessions', { session_id: 'u-many' });
    const five = { contexts: [1, 2, 3, 4, 5].map((i) => `${MEM}/n${i}.md`) };
    for (let i = 0; i < 20; i++) expect((await post('/api/v1/sessions/u-many/used', five)).status).toBe(200);
    const over = await post('/api/v1/sessions/u-many/used', { contexts: [`${MEM}/a.md`] });
    expect([over.status, over.body.error.code, over.body.error.details]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      { field: 'contexts', usage_records: 100, max_usage_records: 100 },
    ]);
    expect(over.body.error.message).toBe(
      'Session u-many would hold 101 usage records (at most 100) not yet committed: commit it first (POST /api/v1/sessions/u-many/commit)',
    );
    expect(await openRecords('u-many')).toBe(100);
    const t = await commitAndWait('u-many');
    expect(t.result.usage_events_extracted).toBe(100);
    // Consumed records are gone, not kept marked: the session holds none, and takes new ones.
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM session_usage WHERE session_id = 'u-many'`,
    );
    expect(rows[0].n).toBe(0);
    // …and the account's usage lost their bytes with them: it still equals what its rows hold.
    expect((await readUsage(db, 'default')).contentBytes).toBe((await countedUsage(db, 'default')).contentBytes);
    expect((await post('/api/v1/sessions/u-many/used', five)).status).toBe(200);
  });

  it('a replayed completion of the same job counts nothing twice', async () => {
    await post('/api/v1/sessions', { session_id: 'u2' });
    await post('/api/v1/sessions/u2/used', { contexts: [`${MEM}/b.md`] });
    const t = await commitAndWait('u2');
    expect([t.result.usage_events_extracted, t.result.active_count_updated]).toEqual([1, 1]);
    expect(await activeCount(`${MEM}/b.md`)).toBe(2);
    // A retried job reaching its completing transaction again: its task is completed, nothing changes.
    await post('/api/v1/sessions/u2/used', { contexts: [`${MEM}/b.md`] });
    const { rows } = await db.query<{ job: any }>('SELECT job FROM session_tasks WHERE task_id = $1', [t.task_id]);
    const again = await app.nest.get(SessionTaskRepository).complete(
      rows[0].job,
      { accountId: rows[0].job.accountId, userId: rows[0].job.userId, role: 'user', actorPeerId: null },
      {
        writes: [],
        overview: '',
        abstract: '',
        overviewTokens: 0,
        llmUsage: null,
        memoryDiff: false,
        workingMemory: false,
        result: () => ({}),
      },
    );
    expect(again).toBeNull();
    expect(await activeCount(`${MEM}/b.md`)).toBe(2);
    expect(await openRecords('u2')).toBe(1);
  });

  it("only nodes the user can see are counted: another user's file keeps its count", async () => {
    // bob's file, written straight into the store (the dev identity cannot write into another user's space).
    await db.query(
      `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, content)
       VALUES ('default', 'viking://user/bob/memories/secret.md', 'viking://user/bob/memories', 'file', 'memory', 'bob', 's')
       ON CONFLICT DO NOTHING`,
    );
    await post('/api/v1/sessions', { session_id: 'u3' });
    await post('/api/v1/sessions/u3/used', { contexts: ['viking://user/bob/memories/secret.md'] });
    const t = await commitAndWait('u3');
    expect([t.result.usage_events_extracted, t.result.active_count_updated]).toEqual([1, 0]);
    expect(await activeCount('viking://user/bob/memories/secret.md')).toBe(0);
  });

  it('commits of two sessions counting the same nodes at once both complete, and both counts land', async () => {
    const before = (await activeCount(`${MEM}/a.md`))!;
    for (const sid of ['u6', 'u7']) {
      await post('/api/v1/sessions', { session_id: sid });
      await post(`/api/v1/sessions/${sid}/used`, { contexts: [`${MEM}/b.md`, `${MEM}/a.md`] });
    }
    const [t6, t7] = await Promise.all([commitAndWait('u6'), commitAndWait('u7')]);
    expect([t6.status, t6.result.active_count_updated, t7.status, t7.result.active_count_updated]).toEqual([
      'completed',
      2,
      'completed',
      2,
    ]);
    expect(await activeCount(`${MEM}/a.md`)).toBe(before + 2);
  });

  it('an empty body records nothing; a missing session is 404; deleting the session deletes its records', async () => {
    await post('/api/v1/sessions', { session_id: 'u4' });
    const empty = await post('/api/v1/sessions/u4/used', {});
    expect(empty.body.result).toEqual({ session_id: 'u4', contexts_used: 0, skills_used: 0 });
    const missing = await post('/api/v1/sessions/nope/used', { contexts: [`${MEM}/a.md`] });
    expect([missing.status, missing.body.error?.code, missing.body.error?.message]).toEqual([
      404,
      'NOT_FOUND',
      'Session not found: nope',
    ]);
    expect(await openRecords('nope')).toBe(0);

    await post('/api/v1/sessions/u4/used', { contexts: [`${MEM}/a.md`] });
    expect(await openRecords('u4')).toBe(1);
    expect((await app.request('DELETE', '/api/v1/sessions/u4')).status).toBe(200);
    expect(await openRecords('u4')).toBe(0);
    await post('/api/v1/sessions', { session_id: 'u4' });
    const t = await commitAndWait('u4');
    expect(t.result.usage_events_extracted).toBe(0);
  });

  it('bounds and bad input are a 400 naming the field', async () => {
    await post('/api/v1/sessions', { session_id: 'u5' });
    const six = Array.from({ length: 6 }, (_, i) => `${MEM}/${i}.md`);
    const cases: [unknown, (string | number)[]][] = [
      [{ contexts: six }, ['body', 'contexts']],
      [{ contexts: [`viking://resources/${'x'.repeat(3000)}`] }, ['body', 'contexts', 0]],
      [{ skill: { uri: 'viking://~/skills/s', input: 'x'.repeat(1001) } }, ['body', 'skill', 'input']],
      [{ skill: { uri: 'viking://~/skills/s', output: 'x'.repeat(1001) } }, ['body', 'skill', 'output']],
      [{ contexts: [1] }, ['body', 'contexts']],
      [{ skill: { input: 'q' } }, ['body', 'skill', 'uri']],
      [{ skill: { uri: 'viking://~/skills/s', success: 'yes' } }, ['body', 'skill', 'success']],
    ];
    for (const [body, loc] of cases) {
      const r = await post('/api/v1/sessions/u5/used', body);
      expect([loc, r.status, r.body.error?.code]).toEqual([loc, 400, 'INVALID_ARGUMENT']);
      expect([loc, r.body.error.details.validation_errors[0].loc]).toEqual([loc, loc]);
    }
    const bad = await post('/api/v1/sessions/u5/used', { contexts: [`${MEM}/a.md`, 'https://example.com'] });
    expect([bad.status, bad.body.error?.details?.field]).toEqual([400, 'contexts[1]']);
    expect(await openRecords('u5')).toBe(0);
  });
});

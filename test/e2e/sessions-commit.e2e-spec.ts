import { startTestApp, storeModes, TestApp } from '@app/testing';
import { eventually } from './sessions-support';

/** Polls `check` until it returns a truthy value (60 s at most): extraction and indexing are asynchronous. */

const CONVERSATION = [
  {
    role: 'user',
    content: 'We are moving the search service to Postgres next sprint.',
    created_at: '2026-08-20T10:00:00Z',
  },
  { role: 'assistant', content: 'Noted: the search service moves to Postgres next sprint. Anything to prepare?' },
  { role: 'user', content: 'Yes, ask Marguerite about the Zanzibar schema before Friday. I love quick reviews.' },
  { role: 'assistant', content: 'I will remind you to talk to Marguerite about the Zanzibar schema.' },
];

describe.each(storeModes())('sessions: commit → extraction → served memory (store: %s)', (store) => {
  let app: TestApp;
  const post = (path: string, body?: unknown) => app.request('POST', path, { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);
  const task = (id: string) =>
    eventually(async () => {
      const r = await get(`/api/v1/tasks/${id}`);
      return r.body.result?.status === 'completed' || r.body.result?.status === 'failed' ? r.body.result : null;
    });

  beforeAll(async () => {
    app = await startTestApp({
      store,
      env: { MUNINN_OUTBOX_GRACE_MS: '300', MUNINN_OUTBOX_POLL_MS: '100', MUNINN_SIDECAR_INTERVAL_MS: '200' },
    });
  }, 60_000);
  afterAll(() => app?.close());

  it('create → batch → commit → task completes → memories findable, served in context mode, /context has the overview', async () => {
    const created = await post('/api/v1/sessions', { session_id: 'plan-1', user: 'ignored' });
    expect(created.status).toBe(200);
    expect(created.body.result).toMatchObject({
      session_id: 'plan-1',
      auto_commit_policy: null,
      memory_extraction_config: { events: { tags: [] } },
    });
    expect((await post('/api/v1/sessions', { session_id: 'plan-1' })).body.error.code).toBe('ALREADY_EXISTS');

    const batch = await post('/api/v1/sessions/plan-1/messages/batch', { messages: CONVERSATION, wait: true });
    expect(batch.status).toBe(200);
    expect(batch.body.result).toMatchObject({ session_id: 'plan-1', message_count: 4, added: 4 });
    const meta = (await get('/api/v1/sessions/plan-1')).body.result;
    expect(meta.pending_tokens).toBe(batch.body.result.pending_tokens);
    expect(meta.pending_tokens).toBeGreaterThan(0);
    expect(meta.last_message_at).not.toBe('');

    const commit = await post('/api/v1/sessions/plan-1/commit', { keep_recent_count: 1, wait: true });
    expect(commit.status).toBe(200);
    expect(commit.body.result).toMatchObject({
      status: 'accepted',
      archived: true,
      archive_uri: 'viking://user/default/sessions/plan-1/history/archive_001',
    });
    expect(commit.body.result).not.toHaveProperty('memory_diff_uri');
    const after = (await get('/api/v1/sessions/plan-1')).body.result;
    expect(after).toMatchObject({
      message_count: 1,
      total_message_count: 4,
      commit_count: 1,
      pending_tokens: 0,
      keep_recent_count: 1,
    });
    expect(after.last_commit_at).not.toBe('');

    const done = await task(commit.body.result.task_id);
    expect(done.status).toBe('completed');
    expect(done.task_type).toBe('session_commit');
    expect(done.resource_id).toBe('plan-1');
    expect(done.result.extractor).toBe('offline');
    expect(done.result.memories_extracted.memory_write).toBeGreaterThan(0);
    const uris: string[] = done.result.memory_uris;
    expect(uris.some((u) => u.startsWith('viking://user/default/memories/events/2026/08/20/'))).toBe(true);
    expect(uris).toContain('viking://user/default/memories/entities/mentioned/marguerite.md');

    // Findable through the index, and served in a context block.
    await eventually(async () => {
      const r = await post('/api/v1/search/find', {
        query: 'Zanzibar schema Marguerite',
        target_uri: 'viking://user/default/memories',
        limit: 10,
      });
      return (r.body.result?.memories ?? []).some((h: { uri: string }) => uris.includes(h.uri));
    });
    const ctx = await post('/api/v1/search/search', {
      query: 'Who should I ask about the Zanzibar schema?',
      mode: 'context',
      max_tokens: 1600,
    });
    expect(ctx.status).toBe(200);
    expect(JSON.stringify(ctx.body.result)).toContain('Marguerite');

    const view = (await get('/api/v1/sessions/plan-1/context?token_budget=32000')).body.result;
    expect(view.latest_archive_overview).toContain('# Working Memory');
    expect(view.latest_archive_overview).toContain('## Key Facts & Decisions');
    expect(view.messages.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual([CONVERSATION[3].content]);
    expect(view.stats).toMatchObject({ totalArchives: 1, includedArchives: 0, droppedArchives: 1, failedArchives: 0 });
    expect(view.estimatedTokens).toBe(view.stats.activeTokens + view.stats.archiveTokens);

    const archive = await get('/api/v1/sessions/plan-1/archives/archive_001');
    expect(archive.status).toBe(200);
    expect(archive.body.result.archive_id).toBe('archive_001');
    expect(archive.body.result.abstract).not.toBe('');
    expect(archive.body.result.messages).toHaveLength(3);
    expect(archive.body.result.messages[0].created_at).toBe('2026-08-20T10:00:00Z');

    const meta2 = (await get('/api/v1/sessions/plan-1')).body.result;
    expect(meta2.memories_extracted.total).toBeGreaterThan(0);
  });

  it('a replayed commit job changes nothing: the same archive gives the same files', async () => {
    await post('/api/v1/sessions/replay/messages/batch', { messages: CONVERSATION });
    const c = (await post('/api/v1/sessions/replay/commit')).body.result;
    const done = await task(c.task_id);
    // Same conversation, another session: entity quotes already present are not written twice.
    const ent = await get(
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/default/memories/entities/mentioned/marguerite.md')}`,
    );
    const lines = String(ent.body.result)
      .split('\n')
      .filter((l) => l.includes('Zanzibar'));
    expect(new Set(lines).size).toBe(lines.length);
    expect(done.result.memories_extracted.memory_edit ?? 0).toBeGreaterThanOrEqual(0);
  });

  it('sessions whose ids slug alike (Col-A, col.a, col_a) keep one event file each on one day (docs/sessions.md "Event file names")', async () => {
    const said = {
      'Col-A': 'Alpha session: I work at Contoso on the billing team.',
      'col.a': 'Beta session: my sister Jane lives in Oslo.',
      col_a: 'Gamma session: the standup moved to nine thirty.',
    };
    const events: Record<string, string[]> = {};
    for (const [sid, content] of Object.entries(said)) {
      const m = await post(`/api/v1/sessions/${sid}/messages`, {
        role: 'user',
        content,
        created_at: '2026-12-03T09:00:00Z',
      });
      expect(m.status).toBe(200);
      const c = (await post(`/api/v1/sessions/${sid}/commit`)).body.result;
      const done = await task(c.task_id);
      expect(done.status).toBe('completed');
      events[sid] = done.result.memory_uris.filter((u: string) => u.includes('/memories/events/2026/12/03/'));
      expect(events[sid]).toHaveLength(1);
    }
    const uris = Object.values(events).flat();
    expect(new Set(uris).size).toBe(3);
    // The id that is its own slug keeps the readable name; the others add a hash of the exact id.
    expect(events.col_a[0]).toBe('viking://user/default/memories/events/2026/12/03/col_a_archive_001_p1.md');
    expect(events['Col-A'][0]).toMatch(/\/col_a\.[0-9a-f]{16}_archive_001_p1\.md$/);
    expect(events['col.a'][0]).toMatch(/\/col_a\.[0-9a-f]{16}_archive_001_p1\.md$/);
    // Each file still holds its own session's words, and only those (before: Beta overwrote Alpha).
    for (const [sid, content] of Object.entries(said)) {
      const body = String((await get(`/api/v1/content/read?uri=${encodeURIComponent(events[sid][0])}`)).body.result);
      expect(body).toContain(content);
      for (const other of Object.values(said)) if (other !== content) expect(body).not.toContain(other);
    }
  });

  it('skips: empty session, all within the keep window; commit of an unknown session is 404', async () => {
    await post('/api/v1/sessions', { session_id: 'empty' });
    expect((await post('/api/v1/sessions/empty/commit')).body.result).toMatchObject({
      status: 'skipped',
      task_id: null,
      archive_uri: null,
      archived: false,
      reason: 'no_messages',
    });
    await post('/api/v1/sessions/empty/messages', { role: 'user', content: 'one' });
    await post('/api/v1/sessions/empty/messages', { role: 'user', content: 'two' });
    const k = await post('/api/v1/sessions/empty/commit', { keep_recent_count: 5 });
    expect(k.body.result).toMatchObject({ status: 'skipped', reason: 'all_within_keep_window' });
    expect((await get('/api/v1/sessions/empty')).body.result.pending_tokens).toBe(0);
    const nf = await post('/api/v1/sessions/nope/commit');
    expect(nf.status).toBe(404);
    expect(nf.body.error.message).toBe('Session not found: nope');
  });

  it('two concurrent commits: exactly one archives; messages added after a commit stay live', async () => {
    await post('/api/v1/sessions/race/messages/batch', { messages: CONVERSATION });
    const [a, b] = await Promise.all([post('/api/v1/sessions/race/commit'), post('/api/v1/sessions/race/commit')]);
    const archived = [a, b].filter((r) => r.body.result.archived === true);
    expect(archived).toHaveLength(1);
    expect([a, b].find((r) => r.body.result.archived === false)!.body.result.reason).toBe('no_messages');
    await post('/api/v1/sessions/race/messages', { role: 'user', content: 'after the commit' });
    await task(archived[0].body.result.task_id);
    const live = (await get('/api/v1/sessions/race/context')).body.result.messages;
    expect(live.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual(['after the commit']);
    // The second commit gets its own task and archive_002.
    const second = (await post('/api/v1/sessions/race/commit')).body.result;
    expect(second.archive_uri.endsWith('/archive_002')).toBe(true);
    expect(second.task_id).not.toBe(archived[0].body.result.task_id);
    await task(second.task_id);
  });

  it('pending archive messages show in /context before live ones; tasks list and 404s', async () => {
    const list = (await get('/api/v1/tasks?task_type=session_commit&limit=200')).body.result;
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((t: { task_type: string }) => t.task_type === 'session_commit')).toBe(true);
    const completed = (await get('/api/v1/tasks?status=completed')).body.result;
    expect(completed.every((t: { status: string }) => t.status === 'completed')).toBe(true);
    expect((await get('/api/v1/tasks/nonexistent-id')).status).toBe(404);
    expect((await get('/api/v1/tasks?limit=201')).status).toBe(400);
    expect((await get('/api/v1/sessions/plan-1/archives/archive_009')).status).toBe(404);
    expect((await get('/api/v1/sessions/plan-1/archives/bogus')).status).toBe(404);
  });

  it('a failed extraction: task failed, archive not served, /context reports it; the next commit is archive_002', async () => {
    // A directory where the extractor wants to write an entity file: the write is refused every time.
    await post('/api/v1/fs/mkdir', { uri: 'viking://user/default/memories/entities/mentioned/zorblax.md' });
    await post('/api/v1/sessions/fails/messages/batch', {
      messages: [{ role: 'user', content: 'Yesterday I met Zorblax at the market.' }],
    });
    const c = (await post('/api/v1/sessions/fails/commit')).body.result;
    const t = await task(c.task_id);
    expect(t.status).toBe('failed');
    expect(t.stage).toBe('failed');
    expect(t.error).toContain('directory');
    expect((await get('/api/v1/sessions/fails/archives/archive_001')).status).toBe(404);
    await post('/api/v1/sessions/fails/messages', { role: 'user', content: 'Something else entirely.' });
    const view = (await get('/api/v1/sessions/fails/context')).body.result;
    expect(view.stats.failedArchives).toBe(1);
    expect(view.latest_archive_overview).toBe('');
    expect(view.messages.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual([
      'Something else entirely.',
    ]);
    const next = (await post('/api/v1/sessions/fails/commit')).body.result;
    expect(next.archive_uri.endsWith('/archive_002')).toBe(true);
    expect((await task(next.task_id)).status).toBe('completed');
  });

  it('DELETE removes the session and its archives; memories stay; unknown → 404', async () => {
    expect((await app.request('DELETE', '/api/v1/sessions/plan-1')).body.result).toEqual({ session_id: 'plan-1' });
    expect((await get('/api/v1/sessions/plan-1')).status).toBe(404);
    expect((await get('/api/v1/sessions/plan-1/archives/archive_001')).status).toBe(404);
    const ent = await get(
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/default/memories/entities/mentioned/marguerite.md')}`,
    );
    expect(ent.status).toBe(200);
    expect((await app.request('DELETE', '/api/v1/sessions/plan-1')).status).toBe(404);
  });

  it('a deleted session id used again numbers on from its last archive: the old events of the day stay (docs/sessions.md "Archive numbers")', async () => {
    const day = '/memories/events/2026/12/04/';
    const commitSaying = async (content: string) => {
      expect(
        (await post('/api/v1/sessions/reused/messages', { role: 'user', content, created_at: '2026-12-04T08:00:00Z' }))
          .status,
      ).toBe(200);
      const c = (await post('/api/v1/sessions/reused/commit')).body.result;
      const done = await task(c.task_id);
      expect(done.status).toBe('completed');
      return {
        archive: c.archive_uri as string,
        events: done.result.memory_uris.filter((u: string) => u.includes(day)),
      };
    };
    const first = await commitSaying('First life: the Lisbon offsite is booked for May.');
    expect(first.archive.endsWith('/reused/history/archive_001')).toBe(true);
    expect((await app.request('DELETE', '/api/v1/sessions/reused')).status).toBe(200);
    const second = await commitSaying('Second life: the Oslo offsite replaces it in June.');
    // Before: archive_001 again, and its event file replaced the first life's one of the same day.
    expect(second.archive.endsWith('/reused/history/archive_002')).toBe(true);
    expect(first.events).toEqual(['viking://user/default/memories/events/2026/12/04/reused_archive_001_p1.md']);
    expect(second.events).toEqual(['viking://user/default/memories/events/2026/12/04/reused_archive_002_p1.md']);
    const read = async (uri: string) =>
      String((await get(`/api/v1/content/read?uri=${encodeURIComponent(uri)}`)).body.result);
    expect(await read(first.events[0])).toContain('Lisbon offsite');
    expect(await read(first.events[0])).not.toContain('Oslo');
    expect(await read(second.events[0])).toContain('Oslo offsite');
    // The re-created session lists only its own archive.
    expect((await get('/api/v1/sessions/reused/archives/archive_002')).status).toBe(200);
    expect((await get('/api/v1/sessions/reused/archives/archive_001')).status).toBe(404);
  });
});

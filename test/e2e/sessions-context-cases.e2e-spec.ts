import { FakeLlmRequest, FakeLlmServer, startFakeLlmServer, startTestApp, TestApp } from '@app/testing';
import { eventually, isExtraction, workingMemory } from './sessions-support';

const text = (req: FakeLlmRequest) => req.messages.map((m) => m.content).join('\n');

/**
 * Contract cases about what a session shows of itself — `/context`, and the session input of query
 * expansion (docs/sessions.md "Session context", "Query expansion") — each named by its number in the
 * contract's case list. The contract's "internal search-context API" and "internal batch API" stand in
 * here as their public routes: the planner prompt a context-mode search with `session_id` sends to the
 * (fake, real HTTP) model, and `messages/batch`. Extraction runs on the fake model, which a test can hold.
 */
describe('sessions: context and search-context cases', () => {
  let app: TestApp;
  let llm: FakeLlmServer;
  /** Extraction calls whose conversation mentions a held word wait until it is released. */
  const held = new Map<string, { promise: Promise<void>; release: () => void }>();
  const hold = (word: string) => {
    let release: () => void = () => undefined;
    const promise = new Promise<void>((r) => (release = r));
    held.set(word, { promise, release });
  };
  const release = (word: string) => held.get(word)?.release();

  const post = (path: string, body?: unknown) => app.request('POST', path, { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);
  const taskIn = (id: string, states: string[]) =>
    eventually(async () => {
      const t = (await get(`/api/v1/tasks/${id}`)).body.result;
      return states.includes(t?.status) ? t : null;
    });
  const commit = async (sid: string) => {
    const c = (await post(`/api/v1/sessions/${sid}/commit`)).body.result;
    expect(c.status).toBe('accepted');
    return c.task_id as string;
  };
  /** The planner prompt of a context-mode search in the session: the session input of query expansion. */
  const searchContext = async (sid: string, query: string) => {
    llm.requests.length = 0;
    const r = await post('/api/v1/search/search', { query, mode: 'context', session_id: sid, max_tokens: 400 });
    expect(r.status).toBe(200);
    const planner = llm.requests.filter((q) => !isExtraction(q) && text(q).includes(query));
    expect(planner).toHaveLength(1);
    const prompt = text(planner[0]);
    const summary = prompt.slice(prompt.indexOf('Conversation summary:'), prompt.indexOf('Latest messages'));
    const messages = prompt.slice(prompt.indexOf('Latest messages'), prompt.indexOf('Current query:'));
    return { summary, messages };
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({
      fallback: async (req) => {
        if (!isExtraction(req)) return '{"queries": []}';
        const prompt = text(req);
        for (const [word, gate] of held) if (prompt.includes(word)) await gate.promise;
        const title = /Title word: (\w+)/.exec(prompt)?.[1] ?? 'Untitled';
        const events = prompt.includes('Case 58')
          ? [{ event_name: 'c58', summary: 'Case 58 talk.', from: 0, to: 0 }]
          : [];
        return JSON.stringify({ overview: workingMemory(`${title} overview`), events });
      },
    });
    app = await startTestApp({
      env: {
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'fake',
        MUNINN_EXTRACT_TIMEOUT_S: '60',
        MUNINN_OUTBOX_GRACE_MS: '300',
        MUNINN_OUTBOX_POLL_MS: '100',
        // The server's default memory policy (case 58): only events and profile, no peer memories.
        MUNINN_SESSION_MEMORY_POLICY: '{"peer":{"enabled":false},"memory_types":["profile","events"]}',
      },
    });
  }, 60_000);
  afterAll(async () => {
    for (const gate of held.values()) gate.release();
    await app?.close();
    await llm?.close();
  });

  it('case 43: two rapid commits — before either finishes the search context has no overview and all 4 messages; after the first, its overview and only the second batch', async () => {
    hold('Alderbatch');
    hold('Birchbatch');
    await post('/api/v1/sessions/c43/messages/batch', {
      messages: [
        { role: 'user', content: 'Title word: Alderbatch. We plan the Alder work.' },
        { role: 'assistant', content: 'Alder work noted.' },
      ],
    });
    const first = await commit('c43');
    await post('/api/v1/sessions/c43/messages/batch', {
      messages: [
        { role: 'user', content: 'Title word: Birchbatch. Then the Birch work.' },
        { role: 'assistant', content: 'Birch work noted.' },
      ],
    });
    const second = await commit('c43');
    await taskIn(first, ['running']);

    const before = await searchContext('c43', 'what comes after the planning, case 43 before');
    expect(before.summary).toContain('(none)');
    for (const m of ['We plan the Alder work.', 'Alder work noted.', 'Then the Birch work.', 'Birch work noted.'])
      expect(before.messages).toContain(m);
    // Nothing is live: the four messages come from the two pending archives.
    expect((await get('/api/v1/sessions/c43')).body.result.message_count).toBe(0);

    release('Alderbatch');
    expect((await taskIn(first, ['completed', 'failed'])).status).toBe('completed');
    expect((await get(`/api/v1/tasks/${second}`)).body.result.status).not.toBe('completed');
    const after = await searchContext('c43', 'what comes after the planning, case 43 after');
    expect(after.summary).toContain('Alderbatch overview');
    expect(after.messages).not.toContain('Alder work');
    expect(after.messages).toContain('Then the Birch work.');
    expect(after.messages).toContain('Birch work noted.');

    release('Birchbatch');
    expect((await taskIn(second, ['completed', 'failed'])).status).toBe('completed');
    const done = await searchContext('c43', 'what comes after the planning, case 43 done');
    expect(done.summary).toContain('Birchbatch overview');
    expect(done.messages).toContain('(none)');
  });

  it('case 44: one live message and no archives — no overview, no abstracts, that message (in /context and in the search context)', async () => {
    await post('/api/v1/sessions/c44/messages', { role: 'user', content: 'Only message of case 44.' });
    const ctx = (await get('/api/v1/sessions/c44/context')).body.result;
    expect(ctx.latest_archive_overview).toBe('');
    expect(ctx.pre_archive_abstracts).toEqual([]);
    expect(ctx.messages).toHaveLength(1);
    expect(ctx.messages[0]).toMatchObject({
      role: 'user',
      parts: [{ type: 'text', text: 'Only message of case 44.' }],
    });
    expect(ctx.stats).toMatchObject({ totalArchives: 0, failedArchives: 0, archiveTokens: 0 });
    const search = await searchContext('c44', 'case 44 follow-up question');
    expect(search.summary).toContain('(none)');
    expect(search.messages).toContain('[user] Only message of case 44.');
  });

  it('case 49: a budget of exactly the live tokens plus the newest overview includes the overview, estimatedTokens = budget, 0 included and 2 dropped archives', async () => {
    for (const word of ['Cedarone', 'Cedartwo']) {
      await post('/api/v1/sessions/c49/messages', { role: 'user', content: `Title word: ${word}. Case 49 talk.` });
      expect((await taskIn(await commit('c49'), ['completed', 'failed'])).status).toBe('completed');
    }
    await post('/api/v1/sessions/c49/messages', { role: 'user', content: 'The live message of case 49.' });
    const full = (await get('/api/v1/sessions/c49/context')).body.result;
    expect(full.latest_archive_overview).toContain('Cedartwo overview');
    const budget = full.stats.activeTokens + full.stats.archiveTokens;
    expect(full.stats.archiveTokens).toBeGreaterThan(0);

    const exact = (await get(`/api/v1/sessions/c49/context?token_budget=${budget}`)).body.result;
    expect(exact.latest_archive_overview).toBe(full.latest_archive_overview);
    expect(exact.estimatedTokens).toBe(budget);
    expect(exact.stats).toMatchObject({ totalArchives: 2, includedArchives: 0, droppedArchives: 2, failedArchives: 0 });
    // One token less: the message still fits, the overview no longer does.
    const short = (await get(`/api/v1/sessions/c49/context?token_budget=${budget - 1}`)).body.result;
    expect(short.latest_archive_overview).toBe('');
    expect(short.messages).toHaveLength(1);
  });

  it('case 51: messages/batch with peer_id, created_at, context and tool parts come back from /context unchanged', async () => {
    const sent = [
      {
        role: 'user',
        peer_id: 'alice',
        created_at: '2026-08-20T09:15:00Z',
        parts: [
          { type: 'text', text: 'Look at this note.' },
          { type: 'context', uri: 'viking://resources/notes/plan.md', context_type: 'resource', abstract: 'The plan.' },
        ],
      },
      {
        role: 'assistant',
        created_at: '2026-08-20T09:15:05Z',
        parts: [
          { type: 'text', text: 'Reading it.' },
          {
            type: 'tool',
            tool_id: 'call-1',
            tool_name: 'read',
            tool_uri: '',
            skill_uri: '',
            tool_input: { path: 'plan.md' },
            tool_output: 'line one',
            tool_status: 'completed',
          },
        ],
      },
    ];
    const batch = await post('/api/v1/sessions/c51/messages/batch', { messages: sent });
    expect(batch.body.result.added).toBe(2);
    const ctx = (await get('/api/v1/sessions/c51/context')).body.result;
    const ids = ctx.messages.map((m: { id: string }) => m.id);
    expect(ids.every((id: string) => /^msg_[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(ctx.messages.map(({ id: _id, ...rest }: { id: string }) => rest)).toEqual(sent);
  });

  it('case 58 (the server default standing in for the absent user settings): a session without a policy gets the server default; its own policy wins', async () => {
    const talk = [{ role: 'user', content: 'Title word: Dunmore. Case 58 talk with a peer.', peer_id: 'zed' }];
    await post('/api/v1/sessions/c58-default/messages/batch', { messages: talk });
    const byDefault = await taskIn(await commit('c58-default'), ['completed', 'failed']);
    expect(byDefault.result.effective_memory_types).toEqual(['events', 'profile']);
    // Peer memory is off by the server default: the peer's turn lands in the user's own space.
    expect(byDefault.result.memory_uris).toHaveLength(1);
    expect(byDefault.result.memory_uris[0]).toMatch(/^viking:\/\/user\/default\/memories\/events\//);
    expect((await get('/api/v1/sessions/c58-default')).body.result.memory_policy).toBeNull();

    await post('/api/v1/sessions', { session_id: 'c58-own', memory_policy: { memory_types: ['events', 'entities'] } });
    await post('/api/v1/sessions/c58-own/messages/batch', { messages: talk });
    const own = await taskIn(await commit('c58-own'), ['completed', 'failed']);
    expect(own.result.effective_memory_types).toEqual(['entities', 'events']);
    // The session's policy leaves peer memory on (its default), so the event is the peer's.
    expect(own.result.memory_uris).toHaveLength(1);
    expect(own.result.memory_uris[0]).toMatch(/^viking:\/\/user\/default\/peers\/zed\/memories\/events\//);
  });

  it('case 17: a session that holds nothing yet (created, never written) — GET 200 with 0 messages, create again 409, DELETE 200 and gone', async () => {
    // Muninn keeps no session directory: a created, never written session stands in for the bare one.
    expect((await post('/api/v1/sessions', { session_id: 'c17' })).status).toBe(200);
    const meta = await get('/api/v1/sessions/c17');
    expect([meta.status, meta.body.result.message_count]).toEqual([200, 0]);
    const again = await post('/api/v1/sessions', { session_id: 'c17' });
    expect([again.status, again.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
    const del = await app.request('DELETE', '/api/v1/sessions/c17');
    expect([del.status, del.body.result]).toEqual([200, { session_id: 'c17' }]);
    expect((await get('/api/v1/sessions/c17')).status).toBe(404);
    const ls = await get(`/api/v1/fs/ls?uri=${encodeURIComponent('viking://user/default/sessions/c17')}`);
    expect(ls.status).toBe(404);
  });
});

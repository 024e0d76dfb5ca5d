import { FakeLlmReply, FakeLlmServer, startFakeLlmServer, startTestApp, TestApp } from '@app/testing';
import { eventually, isExtraction, modelTestApp, workingMemory } from './sessions-support';

/** The model path of extraction against a real OpenAI-protocol server: answers, failures, fallback, merge. */
describe('sessions: extraction with a model (fake LLM server)', () => {
  let app: TestApp;
  let llm: FakeLlmServer;
  /** What the fake answers to the next extraction call; planner/digest calls get an empty answer. */
  let next: FakeLlmReply | string = '{}';
  const post = (path: string, body?: unknown) => app.request('POST', path, { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);
  const commitAndWait = async (sid: string, messages: unknown[]) => {
    await post(`/api/v1/sessions/${sid}/messages/batch`, { messages });
    const c = (await post(`/api/v1/sessions/${sid}/commit`)).body.result;
    expect(c.status).toBe('accepted');
    return eventually(async () => {
      const r = (await get(`/api/v1/tasks/${c.task_id}`)).body.result;
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });
  };
  const read = async (uri: string) =>
    (await get(`/api/v1/content/read?uri=${encodeURIComponent(uri)}`)).body.result as string;

  beforeAll(async () => {
    llm = await startFakeLlmServer({ fallback: (req) => (isExtraction(req) ? next : '{"queries": []}') });
    app = await startTestApp({
      env: {
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'fake',
        MUNINN_EXTRACT_TIMEOUT_S: '1',
        MUNINN_EXTRACT_RETRY_S: '0.1',
        MUNINN_OUTBOX_GRACE_MS: '300',
        MUNINN_OUTBOX_POLL_MS: '100',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });

  it('a well-formed answer: typed memories at derived paths, the model overview, usage reported', async () => {
    next = {
      text: JSON.stringify({
        profile: 'Works on the search team.',
        entities: [
          { category: 'person', name: 'Ottoline', content: "The user's sister; visiting Reykjavik in March." },
        ],
        preferences: [{ topic: 'reviews', content: 'Prefers quick code reviews.' }],
        events: [{ event_name: 'Ottoline visit', summary: 'Ottoline visits Reykjavik in March 2026.', from: 0, to: 1 }],
        overview: workingMemory('Family visit planning'),
      }),
      usage: { prompt_tokens: 321, completion_tokens: 45 },
    };
    const t = await commitAndWait('m1', [
      {
        role: 'user',
        content: 'My sister Ottoline is visiting Reykjavik in March. I prefer quick reviews.',
        created_at: '2026-03-02T09:00:00Z',
      },
      { role: 'assistant', content: 'Noted.' },
    ]);
    expect(t.status).toBe('completed');
    expect(t.result.extractor).toBe('model');
    expect(t.result.memories_extracted).toEqual({ memory_write: 4 });
    expect(t.result.token_usage.llm).toMatchObject({ prompt_tokens: 321, completion_tokens: 45, total_tokens: 366 });
    expect(t.result.memory_uris.sort()).toEqual([
      'viking://user/default/memories/entities/person/ottoline.md',
      'viking://user/default/memories/events/2026/03/02/ottoline_visit-m1_archive_001_1.md',
      'viking://user/default/memories/preferences/default/reviews.md',
      'viking://user/default/memories/profile.md',
    ]);
    expect(await read('viking://user/default/memories/entities/person/ottoline.md')).toContain('visiting Reykjavik');
    const ctx = (await get('/api/v1/sessions/m1/context')).body.result;
    expect(ctx.latest_archive_overview).toContain('Family visit planning');
    const archive = (await get('/api/v1/sessions/m1/archives/archive_001')).body.result;
    expect(archive.abstract).toBe('Family visit planning');
    const meta = (await get('/api/v1/sessions/m1')).body.result;
    expect(meta.llm_token_usage.prompt_tokens).toBe(321);
  });

  it('an edit of an existing memory: the model sees the page and its new content replaces it (memory_edit)', async () => {
    llm.requests.length = 0;
    next = JSON.stringify({
      entities: [
        { category: 'person', name: 'Ottoline', content: "The user's sister; she moved her Reykjavik visit to April." },
      ],
      overview: workingMemory('Visit moved'),
    });
    const t = await commitAndWait('m2', [{ role: 'user', content: 'Ottoline moved her visit to April.' }]);
    expect(t.result.extractor).toBe('model');
    expect(t.result.memories_extracted).toEqual({ memory_edit: 1 });
    const prompt = llm.requests.find(isExtraction)!.messages[1].content;
    expect(prompt).toContain('--- entities/person/ottoline.md');
    expect(prompt).toContain('visiting Reykjavik in March');
    expect(await read('viking://user/default/memories/entities/person/ottoline.md')).toContain(
      'moved her Reykjavik visit to April',
    );
    // The same answer again changes nothing: skipped, not counted.
    const again = await commitAndWait('m2', [{ role: 'user', content: 'Just confirming April.' }]);
    expect(again.result.memories_extracted).toEqual({});
  });

  it.each([
    ['malformed', { text: 'I think the user likes things.' }, /unusable/],
    // Tried on each of the job's six attempts first (docs/sessions.md "A provider that fails for a while").
    ['failing', { status: 500 }, /HTTP 500.*, attempt 6$/],
    ['slow', { delayMs: 3000, text: '{}' }, /timed out/],
  ])('a %s answer falls back to the offline extractor, and says why', async (_name, reply, reason) => {
    next = reply as FakeLlmReply;
    const t = await commitAndWait(`f-${_name}`, [
      {
        role: 'user',
        content: 'We decided Kestrel Street is where the new office goes.',
        created_at: '2026-05-05T10:00:00Z',
      },
      { role: 'assistant', content: 'Kestrel Street it is.' },
    ]);
    expect(t.status).toBe('completed');
    expect(t.result.extractor).toBe('offline');
    expect(t.result.extractor_fallback_reason).toMatch(reason);
    expect(t.result.memory_uris.some((u: string) => u.includes('/events/2026/05/05/'))).toBe(true);
    expect((await get(`/api/v1/sessions/f-${_name}/context`)).body.result.latest_archive_overview).toContain(
      '## Key Facts & Decisions',
    );
  });

  it('two sessions whose model names one event alike keep two event files (docs/sessions.md "Event file names")', async () => {
    const answer = (summary: string) =>
      JSON.stringify({
        events: [{ event_name: 'Weekly sync', summary, from: 0, to: 0 }],
        overview: workingMemory('Sync'),
      });
    const files: string[] = [];
    for (const [sid, summary] of [
      ['Sync-A', 'Alpha: the weekly sync moved to Monday.'],
      ['sync.a', 'Beta: the weekly sync is cancelled in July.'],
    ]) {
      next = answer(summary);
      const t = await commitAndWait(sid, [{ role: 'user', content: summary, created_at: '2026-06-01T09:00:00Z' }]);
      expect(t.result.extractor).toBe('model');
      const uri = t.result.memory_uris.find((u: string) => u.includes('/events/2026/06/01/'));
      expect(uri).toMatch(/\/weekly_sync-sync_a\.[0-9a-f]{16}_archive_001_1\.md$/);
      expect(await read(uri)).toContain(summary);
      files.push(uri);
    }
    expect(files[0]).not.toBe(files[1]);
    expect(await read(files[0])).toContain('Alpha: the weekly sync moved to Monday.');
  });

  it('query expansion sees the newest archive overview of the session', async () => {
    llm.requests.length = 0;
    const r = await post('/api/v1/search/search', {
      query: 'when is the visit?',
      mode: 'context',
      session_id: 'm1',
      max_tokens: 800,
    });
    expect(r.status).toBe(200);
    const planner = llm.requests.find(
      (q) => !isExtraction(q) && q.messages[1]?.content.includes('Conversation summary:'),
    );
    expect(planner?.messages[1].content).toContain('Family visit planning');
  });
});

describe('sessions: a commit larger than one model prompt is extracted in several calls', () => {
  // Each call answers for its window: an event, a preference and an overview titled by its number.
  const { get, extractionCalls, commitAndWait } = modelTestApp(
    (req) => {
      if (!isExtraction(req)) return '{"queries": []}';
      const n = extractionCalls().length;
      return {
        text: JSON.stringify({
          profile: null,
          entities: [],
          preferences: [{ topic: `window-${n}`, content: `Preference seen in window ${n}.` }],
          events: [{ event_name: `window ${n}`, summary: `What window ${n} was about.`, from: 0, to: 1 }],
          overview: workingMemory(`Window ${n}`),
        }),
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      };
    },
    { MUNINN_EXTRACT_PROMPT_CHARS: '1000', MUNINN_EXTRACT_MAX_CALLS: '3' },
  );

  it('sends the archive in order, each call building on the last one’s overview and pages; past the cap, the rest is extracted offline', async () => {
    // Seven turns of ~440 characters: two fit in a 1,000-character window, so four windows, of which three are sent.
    const turn = (i: number) => `Turn ${i} marker-${i}: ${'the lighthouse keeper logged the tide again. '.repeat(9)}`;
    const messages = Array.from({ length: 7 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: turn(i + 1),
      created_at: '2026-05-04T10:00:00Z',
    }));
    const t = await commitAndWait('big', messages);
    expect(t.status).toBe('completed');
    expect(t.result.extractor).toBe('model');
    const prompts = extractionCalls().map((r) => r.messages[1].content);
    expect(prompts).toHaveLength(3);
    const marked = (p: string) => [1, 2, 3, 4, 5, 6, 7].filter((i) => p.includes(`marker-${i}:`));
    expect(prompts.map(marked)).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    // Window 2 sees window 1's overview and the page it proposed; window 3 sees window 2's.
    expect(prompts[1]).toContain('Previous working memory:\n# Working Memory');
    expect(prompts[1]).toContain('Window 1');
    expect(prompts[1]).toContain('preferences/default/window_1.md');
    expect(prompts[2]).toContain('Window 2');
    expect(prompts[2]).toContain('preferences/default/window_2.md');
    expect(t.result.token_usage.llm).toMatchObject({ prompt_tokens: 300, completion_tokens: 30 });
    // Every window's memories are written; events are numbered apart; the summary is the last window's;
    // the turn past the last call is extracted offline (an offline event part), not dropped.
    const uris = t.result.memory_uris as string[];
    expect(uris).toEqual(
      expect.arrayContaining([
        'viking://user/default/memories/events/2026/05/04/window_1-big_archive_001_1.md',
        'viking://user/default/memories/events/2026/05/04/window_2-big_archive_001_51.md',
        'viking://user/default/memories/events/2026/05/04/window_3-big_archive_001_101.md',
        'viking://user/default/memories/events/2026/05/04/big_archive_001_p1.md',
        'viking://user/default/memories/preferences/default/window_1.md',
        'viking://user/default/memories/preferences/default/window_2.md',
        'viking://user/default/memories/preferences/default/window_3.md',
      ]),
    );
    expect(uris.filter((u) => u.includes('/events/'))).toHaveLength(4);
    const rest = await get(
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/default/memories/events/2026/05/04/big_archive_001_p1.md')}`,
    );
    expect(rest.body.result).toContain('marker-7:');
    expect(rest.body.result).not.toContain('marker-6:');
    const event = await get(
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/default/memories/events/2026/05/04/window_2-big_archive_001_51.md')}`,
    );
    expect(event.body.result).toContain('marker-3:');
    expect((await get('/api/v1/sessions/big/archives/archive_001')).body.result.abstract).toBe('Window 3');
  });

  it('a message longer than a prompt: the model reads its head, the offline extractor the whole of it', async () => {
    const before = extractionCalls().length;
    const content = `Head of the pasted log. ${'Line of the build output, nothing failed. '.repeat(60)}Tail marker: kestrel-9.`;
    const t = await commitAndWait('long', [{ role: 'user', content, created_at: '2026-05-04T10:00:00Z' }]);
    expect(t.result.extractor).toBe('model');
    const calls = extractionCalls().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0].messages[1].content).toContain('Head of the pasted log.');
    expect(calls[0].messages[1].content).not.toContain('kestrel-9');
    const part = 'viking://user/default/memories/events/2026/05/04/long_archive_001_p1.md';
    expect(t.result.memory_uris).toContain(part);
    expect((await get(`/api/v1/content/read?uri=${encodeURIComponent(part)}`)).body.result).toContain('kestrel-9');
  });
});

describe("sessions: an account's model budget (MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY)", () => {
  // Every call reports 110 tokens; the budget of 100 is spent by the first.
  const {
    get,
    extractionCalls,
    commitAndWait: commitMessages,
  } = modelTestApp(
    (req) =>
      isExtraction(req)
        ? {
            text: JSON.stringify({
              events: [{ event_name: 'budgeted', summary: 'What the model saw.', from: 0, to: 1 }],
              overview: workingMemory('Budgeted'),
            }),
            usage: { prompt_tokens: 100, completion_tokens: 10 },
          }
        : '{"queries": []}',
    { MUNINN_EXTRACT_PROMPT_CHARS: '1000', MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY: '100' },
  );
  const commitAndWait = (sid: string, turns: string[]) =>
    commitMessages(
      sid,
      turns.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content, created_at: '2026-05-04T10:00:00Z' })),
    );

  it('stops calling the model once the day is spent: the rest of that commit and the next commits are extracted offline, and say so', async () => {
    const turn = (i: number) => `Turn ${i} ledger-${i}: ${'the quartermaster counted the crates again. '.repeat(9)}`;
    const model = async () => (await get('/api/v1/system/status')).body.result.model;
    expect(await model()).toEqual({ tokens_today: 0, max_tokens_per_day: 100 });
    const first = await commitAndWait('budget-1', [1, 2, 3, 4].map(turn));
    expect(extractionCalls()).toHaveLength(1);
    expect(first.status).toBe('completed');
    expect(first.result.extractor).toBe('model');
    expect(first.result.extractor_fallback_reason).toMatch(
      /model budget for today is spent .* after call 1; the rest extracted offline/,
    );
    const uris = first.result.memory_uris as string[];
    expect(uris).toContain('viking://user/default/memories/events/2026/05/04/budgeted-budget-1_archive_001_1.md');
    const offlinePart = uris.find((u) => u.endsWith('/budget-1_archive_001_p1.md')) as string;
    const rest = (await get(`/api/v1/content/read?uri=${encodeURIComponent(offlinePart)}`)).body.result as string;
    expect(rest).toContain('ledger-3:');
    expect(rest).not.toContain('ledger-2:');

    const second = await commitAndWait('budget-2', ['I adopted a grey cat called Pebble.', 'Pebble, noted.']);
    expect(extractionCalls()).toHaveLength(1);
    expect(second.result.extractor).toBe('offline');
    expect(second.result.extractor_fallback_reason).toBe(
      "the account's model budget for today is spent (MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY)",
    );
    expect(second.result.memory_uris.length).toBeGreaterThan(0);
    // The status shows the day's count against the budget: the one call's 110 tokens.
    expect(await model()).toEqual({ tokens_today: 110, max_tokens_per_day: 100 });
  });
});

describe('sessions: a failed extraction call and the model budget', () => {
  // Session "refused-…": the model answers 500 (no prompt read); "late-…": it answers after the fuse.
  const { get, commitAndWait } = modelTestApp(
    (req) =>
      /late-/.test(JSON.stringify(req.messages)) ? { text: '{}', delayMs: 2500 } : { status: 500, text: 'overloaded' },
    { MUNINN_EXTRACT_TIMEOUT_S: '1', MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY: '1000000', MUNINN_EXTRACT_RETRY_S: '0.1' },
  );
  const model = async () => (await get('/api/v1/system/status')).body.result.model;
  const commit = (sid: string) =>
    commitAndWait(sid, [
      { role: 'user', content: `In ${sid} I said the lighthouse keeper retires in May.` },
      { role: 'assistant', content: 'Noted: the keeper retires in May.' },
    ]);

  it('a refused call gives its reservation back; a call past its fuse stays counted at its prompt', async () => {
    // A 500 is tried on each of the job's six attempts (docs/sessions.md "A provider that fails for a while").
    const refused = await commit('refused-1');
    expect(refused.result.extractor).toBe('offline');
    expect(refused.result.extractor_fallback_reason).toMatch(/500.*, attempt 6$/);
    expect((await model()).tokens_today).toBe(0);
    const late = await commit('late-1');
    expect(late.result.extractor).toBe('offline');
    expect(late.result.extractor_fallback_reason).toMatch(/timed out/);
    const { tokens_today } = await model();
    expect(tokens_today).toBeGreaterThan(50);
    expect(tokens_today).toBeLessThan(20_000);
    const metrics = (await get('/metrics')).text;
    expect(metrics).toMatch(/^muninn_model_calls_total\{call="extract",outcome="failed"\} 6$/m);
    expect(metrics).toMatch(/^muninn_model_calls_total\{call="extract",outcome="timeout"\} 1$/m);
    expect(metrics).toMatch(new RegExp(`^muninn_model_tokens_total\\{call="extract"\\} ${tokens_today}$`, 'm'));
  });
});

describe('sessions: automatic commit by thresholds', () => {
  let app: TestApp;
  const post = (path: string, body?: unknown) => app.request('POST', path, { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);

  beforeAll(async () => {
    app = await startTestApp({});
  }, 60_000);
  afterAll(() => app?.close());

  it('a message count past the threshold commits in the background, keeping the policy window', async () => {
    const c = await post('/api/v1/sessions', {
      session_id: 'auto',
      auto_commit_policy: { message_count_threshold: 3, keep_recent_count: 1 },
    });
    expect(c.body.result.auto_commit_policy).toEqual({
      pending_token_threshold: 150000,
      message_count_threshold: 3,
      idle_timeout_seconds: 86400,
      keep_recent_count: 1,
      min_commit_interval_seconds: 0,
    });
    for (const content of ['one', 'two', 'three'])
      await post('/api/v1/sessions/auto/messages', { role: 'user', content });
    expect((await get('/api/v1/sessions/auto')).body.result.commit_count).toBe(0); // 3 is not > 3
    const w = await post('/api/v1/sessions/auto/messages', { role: 'user', content: 'four' });
    expect(w.body.result).toMatchObject({ message_count: 4 }); // the write answers before the commit
    const meta = await eventually(async () => {
      const m = (await get('/api/v1/sessions/auto')).body.result;
      return m.commit_count === 1 ? m : null;
    });
    expect(meta).toMatchObject({ message_count: 1, keep_recent_count: 1, pending_tokens: 0 });
    expect(meta.last_auto_commit_at).not.toBe('');
    const tasks = (await get('/api/v1/tasks?resource_id=auto')).body.result;
    expect(tasks).toHaveLength(1);
  });

  it('an idle session commits by a delayed queue job: everything archived, the keep window not remembered', async () => {
    await post('/api/v1/sessions', {
      session_id: 'idle',
      auto_commit_policy: { idle_timeout_seconds: 1, keep_recent_count: 5 },
    });
    await post('/api/v1/sessions/idle/messages', { role: 'user', content: 'first' });
    await post('/api/v1/sessions/idle/messages', { role: 'user', content: 'second' });
    // Below every threshold and inside the keep window: only the idle timeout can commit this.
    const meta = await eventually(async () => {
      const m = (await get('/api/v1/sessions/idle')).body.result;
      return m.commit_count === 1 ? m : null;
    }, 30_000);
    expect(meta).toMatchObject({ message_count: 0, keep_recent_count: 0, pending_tokens: 0 });
    expect(meta.last_auto_commit_at).not.toBe('');
    expect(Date.parse(meta.last_commit_at) - Date.parse(meta.last_message_at)).toBeGreaterThanOrEqual(1000);
  });

  it('PATCH config merges over the current policy, replaces tags, and null turns it off', async () => {
    await post('/api/v1/sessions', { session_id: 'cfg' });
    const p1 = await app.request('PATCH', '/api/v1/sessions/cfg/config', {
      body: {
        memory_extraction_config: { events: { tags: ['channel=app'] } },
        auto_commit_policy: { message_count_threshold: 25 },
      },
    });
    expect(p1.body.result.auto_commit_policy).toMatchObject({
      message_count_threshold: 25,
      pending_token_threshold: 150000,
    });
    expect(p1.body.result.memory_extraction_config.events.tags).toEqual(['channel=app']);
    const p2 = await app.request('PATCH', '/api/v1/sessions/cfg/config', {
      body: { auto_commit_policy: { keep_recent_count: 4 } },
    });
    expect(p2.body.result.auto_commit_policy).toMatchObject({ message_count_threshold: 25, keep_recent_count: 4 });
    const p3 = await app.request('PATCH', '/api/v1/sessions/cfg/config', {
      body: { memory_extraction_config: { events: { tags: [] } }, auto_commit_policy: null },
    });
    expect(p3.body.result).toMatchObject({
      auto_commit_policy: null,
      memory_extraction_config: { events: { tags: [] } },
    });
    expect((await get('/api/v1/sessions/cfg')).body.result.auto_commit_policy).toBeNull();
  });
});

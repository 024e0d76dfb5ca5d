import { startTestApp, TestApp } from '@app/testing';
import { eventually } from './sessions-support';

const DEFAULT_POLICY = {
  pending_token_threshold: 150000,
  message_count_threshold: 100,
  idle_timeout_seconds: 86400,
  keep_recent_count: 0,
  min_commit_interval_seconds: 0,
};

/**
 * Contract cases of docs/sessions.md not covered by the other sessions suites, each named by its
 * number in the contract's case list. Dev mode, with the server-wide automatic-commit default on.
 */
describe('sessions: contract cases (server default policy on)', () => {
  let app: TestApp;
  const post = (path: string, body?: unknown) => app.request('POST', path, { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);
  const task = (id: string) =>
    eventually(async () => {
      const r = (await get(`/api/v1/tasks/${id}`)).body.result;
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });

  beforeAll(async () => {
    app = await startTestApp({
      env: {
        MUNINN_SESSION_AUTO_COMMIT_DEFAULT: 'true',
        MUNINN_OUTBOX_GRACE_MS: '300',
        MUNINN_OUTBOX_POLL_MS: '100',
      },
    });
  }, 60_000);
  afterAll(() => app?.close());

  it('case 8: with the server default on, POST {} gets the default policy, explicit null none, a first write the default', async () => {
    const created = await post('/api/v1/sessions', { session_id: 'c8-a' });
    expect(created.body.result.auto_commit_policy).toEqual(DEFAULT_POLICY);
    expect((await get('/api/v1/sessions/c8-a')).body.result.auto_commit_policy).toEqual(DEFAULT_POLICY);
    const off = await post('/api/v1/sessions', { session_id: 'c8-b', auto_commit_policy: null });
    expect(off.body.result.auto_commit_policy).toBeNull();
    expect((await get('/api/v1/sessions/c8-b')).body.result.auto_commit_policy).toBeNull();
    expect((await post('/api/v1/sessions/c8-c/messages', { role: 'user', content: 'hi' })).status).toBe(200);
    expect((await get('/api/v1/sessions/c8-c')).body.result.auto_commit_policy).toEqual(DEFAULT_POLICY);
    expect((await get('/api/v1/sessions/c8-d?auto_create=true')).body.result.auto_commit_policy).toEqual(
      DEFAULT_POLICY,
    );
  });

  it('case 9: an unknown memory type is 400 naming it', async () => {
    const r = await post('/api/v1/sessions', { session_id: 'c9', memory_policy: { memory_types: ['nope'] } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_ARGUMENT');
    expect(r.body.error.message).toBe('Unknown memory_policy.memory_types: nope');
    // Disabled types are unknown too; and nothing was created.
    const tools = await post('/api/v1/sessions', { session_id: 'c9', memory_policy: { memory_types: ['tools'] } });
    expect(tools.status).toBe(400);
    expect((await get('/api/v1/sessions/c9')).status).toBe(404);
    const key = await post('/api/v1/sessions', { session_id: 'c9', memory_policy: { self: { on: true } } });
    expect([key.status, key.body.error.details.field]).toEqual([400, 'memory_policy.self.on']);
  });

  it('case 10: experiences brings cases and trajectories; cases alone normalises to []; the policy is stored normalised', async () => {
    await post('/api/v1/sessions', { session_id: 'c10-a', memory_policy: { memory_types: ['experiences'] } });
    expect((await get('/api/v1/sessions/c10-a')).body.result.memory_policy).toEqual({
      self: { enabled: true },
      peer: { enabled: true },
      memory_types: ['cases', 'experiences', 'trajectories'],
    });
    await post('/api/v1/sessions', {
      session_id: 'c10-b',
      memory_policy: { memory_types: ['cases'], working_memory: { enabled: 'off' }, peer: { enabled: false } },
    });
    expect((await get('/api/v1/sessions/c10-b')).body.result.memory_policy).toEqual({
      self: { enabled: true },
      peer: { enabled: false },
      working_memory: { enabled: false },
      memory_types: [],
    });
    await post('/api/v1/sessions', { session_id: 'c10-c' });
    expect((await get('/api/v1/sessions/c10-c')).body.result.memory_policy).toBeNull();
  });

  it('the memory policy decides what a commit extracts: its types only; none and no summary when switched off', async () => {
    const talk = [
      { role: 'user', content: 'Yesterday I met Zebulon at the harbour. I love sailing boats.' },
      { role: 'assistant', content: 'Zebulon at the harbour, noted.' },
    ];
    await post('/api/v1/sessions', { session_id: 'mp-events', memory_policy: { memory_types: ['events'] } });
    await post('/api/v1/sessions/mp-events/messages/batch', { messages: talk });
    const t = await task((await post('/api/v1/sessions/mp-events/commit')).body.result.task_id);
    expect(t.status).toBe('completed');
    expect(t.result.effective_memory_types).toEqual(['events']);
    expect(t.result.memory_uris.length).toBeGreaterThan(0);
    expect(t.result.memory_uris.every((u: string) => u.includes('/memories/events/'))).toBe(true);

    await post('/api/v1/sessions', { session_id: 'mp-none', memory_policy: { memory_types: ['cases'] } });
    await post('/api/v1/sessions/mp-none/messages/batch', { messages: talk });
    const none = await task((await post('/api/v1/sessions/mp-none/commit')).body.result.task_id);
    expect(none.result.memories_extracted).toEqual({});
    expect(none.result.memory_uris).toEqual([]);

    await post('/api/v1/sessions', { session_id: 'mp-nowm', memory_policy: { working_memory: { enabled: false } } });
    await post('/api/v1/sessions/mp-nowm/messages/batch', { messages: talk });
    const nowm = await task((await post('/api/v1/sessions/mp-nowm/commit')).body.result.task_id);
    expect(nowm.status).toBe('completed');
    expect(nowm.result.memory_uris.length).toBeGreaterThan(0);
    // Completed, but with no Working Memory: not served, and /context counts it as failed (as the reference does).
    expect((await get('/api/v1/sessions/mp-nowm/archives/archive_001')).status).toBe(404);
    const ctx = (await get('/api/v1/sessions/mp-nowm/context')).body.result;
    expect(ctx.latest_archive_overview).toBe('');
    expect(ctx.stats.failedArchives).toBe(1);
  });

  it('case 14: PATCH /sessions/{id} is 405 (UNKNOWN, Allow names the routed methods); the policy is unchanged', async () => {
    await post('/api/v1/sessions', { session_id: 'c14', auto_commit_policy: { message_count_threshold: 7 } });
    const r = await app.request('PATCH', '/api/v1/sessions/c14', { body: { auto_commit_policy: null } });
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ status: 'error', error: { code: 'UNKNOWN', message: 'Method Not Allowed' } });
    expect(r.headers.get('allow')).toBe('GET, DELETE');
    expect((await get('/api/v1/sessions/c14')).body.result.auto_commit_policy.message_count_threshold).toBe(7);
    // The mechanism is general: any parameterised route, any wrong method; unrouted paths stay 404.
    const put = await app.request('PUT', '/api/v1/sessions/c14/config', { body: {} });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'PATCH']);
    expect((await app.request('DELETE', '/api/v1/tasks/some-task')).status).toBe(405);
    expect((await app.request('PATCH', '/api/v1/sessions/c14/archives/archive_001', { body: {} })).status).toBe(405);
    expect((await app.request('PATCH', '/api/v1/sessions/c14/no-such-route', { body: {} })).status).toBe(404);
  });

  it('case 48: token_budget=1 gives no messages and no overview; 128000 round-trips a live tool part', async () => {
    await post('/api/v1/sessions/c48/messages', { role: 'user', content: 'Summarise the build log.' });
    const c = (await post('/api/v1/sessions/c48/commit')).body.result;
    expect((await task(c.task_id)).status).toBe('completed');
    const tool = {
      type: 'tool',
      tool_id: 'call_1',
      tool_name: 'read_file',
      tool_input: { path: 'build.log' },
      tool_output: 'BUILD OK in 42s',
      tool_status: 'completed',
    };
    await post('/api/v1/sessions/c48/messages', { role: 'assistant', parts: [tool] });
    const tight = (await get('/api/v1/sessions/c48/context?token_budget=1')).body.result;
    expect(tight.messages).toEqual([]);
    expect(tight.latest_archive_overview).toBe('');
    expect(tight.stats).toMatchObject({ totalArchives: 1, includedArchives: 0, droppedArchives: 1, failedArchives: 0 });
    const full = (await get('/api/v1/sessions/c48/context?token_budget=128000')).body.result;
    expect(full.messages).toHaveLength(1);
    expect(full.messages[0].role).toBe('assistant');
    expect(full.messages[0].parts).toEqual([tool]);
    expect(full.latest_archive_overview).not.toBe('');
  });

  it('task cancellation by a ROOT caller (the dev-mode identity) is 403', async () => {
    await post('/api/v1/sessions/root-cancel/messages', { role: 'user', content: 'hello' });
    const c = (await post('/api/v1/sessions/root-cancel/commit')).body.result;
    const r = await post(`/api/v1/tasks/${c.task_id}/cancel`);
    expect([r.status, r.body.error.code]).toEqual([403, 'PERMISSION_DENIED']);
    await task(c.task_id);
  });

  it('case 59 and archives as files: memory_diff_uri names a readable memory_diff.json; ls, grep and read reach the archive; search does not', async () => {
    await post('/api/v1/sessions/c59/messages/batch', {
      messages: [
        { role: 'user', content: 'Yesterday I met Quillon at the observatory.', created_at: '2026-05-02T10:00:00Z' },
        { role: 'assistant', content: 'Quillon at the observatory, noted.' },
      ],
    });
    const c = (await post('/api/v1/sessions/c59/commit')).body.result;
    // Phase 1 already wrote the archived messages as a file.
    const jsonl = await get(`/api/v1/content/read?uri=${encodeURIComponent(`${c.archive_uri}/messages.jsonl`)}`);
    expect(jsonl.status).toBe(200);
    const lines = (jsonl.body.result as string)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((m) => m.parts[0].text)).toEqual([
      'Yesterday I met Quillon at the observatory.',
      'Quillon at the observatory, noted.',
    ]);
    const t = await task(c.task_id);
    expect(t.status).toBe('completed');
    expect(t.result.memory_diff_uri).toBe(`${c.archive_uri}/memory_diff.json`);
    const diff = await get(`/api/v1/content/read?uri=${encodeURIComponent(t.result.memory_diff_uri)}`);
    expect(diff.status).toBe(200);
    const d = JSON.parse(diff.body.result as string);
    expect(d.archive_uri).toBe(c.archive_uri);
    expect(d.summary.total_adds).toBe(t.result.memories_extracted.memory_write);
    expect(d.operations.adds.map((a: { uri: string }) => a.uri).sort()).toEqual([...t.result.memory_uris].sort());
    expect(d.operations.adds.every((a: { after: string }) => !a.after.includes('MEMORY_FIELDS'))).toBe(true);
    const done = JSON.parse(
      (await get(`/api/v1/content/read?uri=${encodeURIComponent(`${c.archive_uri}/.done`)}`)).body.result,
    );
    expect(done).toMatchObject({
      working_memory_enabled: true,
      starting_message_id: lines[0].id,
      ending_message_id: lines[1].id,
    });

    const history = await get(`/api/v1/fs/ls?uri=${encodeURIComponent('viking://user/default/sessions/c59/history')}`);
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body.result)).toContain('archive_001');
    const grep = await post('/api/v1/search/grep', {
      uri: 'viking://user/default/sessions/c59/history',
      pattern: 'observatory',
    });
    expect(grep.status).toBe(200);
    expect(grep.body.result.matches.map((m: { uri: string }) => m.uri)).toContain(`${c.archive_uri}/messages.jsonl`);
    // Session history is browsable, not search content: context search serves the memories, never the archive.
    await eventually(async () => {
      const r = await post('/api/v1/search/find', { query: 'Quillon observatory', limit: 20 });
      const uris = (r.body.result?.memories ?? []).map((h: { uri: string }) => h.uri);
      return uris.length > 0 && uris;
    });
    const found = await post('/api/v1/search/find', { query: 'Quillon observatory', limit: 50 });
    expect(JSON.stringify(found.body.result)).not.toContain('/sessions/c59');

    expect((await app.request('DELETE', '/api/v1/sessions/c59')).status).toBe(200);
    expect((await get(`/api/v1/fs/ls?uri=${encodeURIComponent('viking://user/default/sessions/c59')}`)).status).toBe(
      404,
    );
  });

  it('turn-budget retention: the newest whole turns stay live, pending_tokens follows the plan, an oversized turn keeps its last step', async () => {
    const say = (role: string, content: string) => ({ role, content });
    const turns = [
      say('user', 'First question about the harbour schedule.'),
      say('assistant', 'The harbour opens at six.'),
      say('user', 'Second question about the ferry.'),
      say('assistant', 'The ferry leaves hourly.'),
      say('user', 'Third question about tickets.'),
      say('assistant', 'Tickets are sold on board.'),
    ];
    await post('/api/v1/sessions/tb/messages/batch', { messages: turns });
    const c = (await post('/api/v1/sessions/tb/commit', { retention_mode: 'turn_budget', keep_recent_turn_count: 2 }))
      .body.result;
    expect(c).toMatchObject({ status: 'accepted', archived: true, budget_exceeded: false });
    expect(c.estimated_active_tokens).toBeGreaterThan(0);
    // Once its archive is done, /context shows only what stayed live.
    expect((await task(c.task_id)).status).toBe('completed');
    const live = (await get('/api/v1/sessions/tb/context')).body.result.messages;
    expect(live.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual(
      turns.slice(2).map((t) => t.content),
    );
    const meta = (await get('/api/v1/sessions/tb')).body.result;
    expect(meta).toMatchObject({
      retention_mode: 'turn_budget',
      keep_recent_turn_count: 2,
      retained_message_token_budget: 12000,
      min_raw_tail_steps: 1,
      keep_recent_count: 0,
      pending_tokens: 0,
    });
    // A new turn pushes the oldest live turn out of the window: pending_tokens is exactly what a commit would archive.
    await post('/api/v1/sessions/tb/messages', say('user', 'Fourth question.'));
    const pending = (await get('/api/v1/sessions/tb')).body.result.pending_tokens;
    expect(pending).toBeGreaterThan(0);
    const again = (
      await post('/api/v1/sessions/tb/commit', { retention_mode: 'turn_budget', keep_recent_turn_count: 2 })
    ).body.result;
    expect((await task(again.task_id)).status).toBe('completed');
    const archived = (await get('/api/v1/sessions/tb/archives/archive_002')).body.result.messages;
    expect(archived.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual([
      turns[2].content,
      turns[3].content,
    ]);
    // Budget smaller than the latest turn: only its newest step stays (min_raw_tail_steps 1), over budget.
    await post('/api/v1/sessions/tb/messages', say('assistant', 'An answer to the fourth question.'));
    const tight = (
      await post('/api/v1/sessions/tb/commit', {
        retention_mode: 'turn_budget',
        keep_recent_turn_count: 1,
        retained_message_token_budget: 1,
      })
    ).body.result;
    expect(tight).toMatchObject({ status: 'accepted', budget_exceeded: true });
    await task(tight.task_id);
    const rest = (await get('/api/v1/sessions/tb/context')).body.result.messages;
    expect(rest.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual([
      'An answer to the fourth question.',
    ]);
    // A default commit forgets the turn settings.
    await post('/api/v1/sessions/tb/commit', {});
    expect((await get('/api/v1/sessions/tb')).body.result).toMatchObject({
      retention_mode: '',
      keep_recent_turn_count: 0,
    });
  });

  it('turn-budget retention: pending_tokens stays exact when the kept turn is longer than the first tail read', async () => {
    const say = (role: string, content: string) => ({ role, content });
    const budget = { retention_mode: 'turn_budget', keep_recent_turn_count: 1, retained_message_token_budget: 100000 };
    // No automatic commit: this suite's default policy would commit at 100 messages.
    await post('/api/v1/sessions', { session_id: 'tb-long', auto_commit_policy: null });
    await post('/api/v1/sessions/tb-long/messages/batch', {
      messages: [
        say('user', 'First question.'),
        say('assistant', 'First answer.'),
        say('user', 'Second question about the harbour.'),
        say('assistant', 'Second answer about the harbour.'),
      ],
    });
    // The first commit keeps the second turn: its tokens are the commit's estimated_active_tokens.
    const first = (await post('/api/v1/sessions/tb-long/commit', budget)).body.result;
    expect((await task(first.task_id)).status).toBe('completed');
    const secondTurn = first.estimated_active_tokens;
    expect(secondTurn).toBeGreaterThan(0);
    // One new turn of 151 messages: longer than the 64 newest messages the pending figure reads first, so
    // the plan keeps that whole read and reads further back, to the second turn it pushes out.
    const steps = Array.from({ length: 150 }, (_, i) => say('assistant', `Step ${i} of a long tool-driven answer.`));
    await post('/api/v1/sessions/tb-long/messages/batch', {
      messages: [say('user', 'Third question.'), ...steps.slice(0, 99)],
    });
    await post('/api/v1/sessions/tb-long/messages/batch', { messages: steps.slice(99) });
    expect((await get('/api/v1/sessions/tb-long')).body.result.pending_tokens).toBe(secondTurn);
    // And a commit archives exactly that turn.
    const again = (await post('/api/v1/sessions/tb-long/commit', budget)).body.result;
    expect((await task(again.task_id)).status).toBe('completed');
    const archived = (await get('/api/v1/sessions/tb-long/archives/archive_002')).body.result.messages;
    expect(archived.map((m: { parts: { text: string }[] }) => m.parts[0].text)).toEqual([
      'Second question about the harbour.',
      'Second answer about the harbour.',
    ]);
  });

  it('case 24: a viking:// image URL with {calendar:today} is expanded before storage', async () => {
    const today = () => new Date().toISOString().slice(0, 10).replace(/-/g, '/');
    const before = today();
    const r = await post('/api/v1/sessions/c24/messages', {
      role: 'user',
      parts: [{ type: 'image_url', image_url: { url: 'viking://resources/photos/{calendar:today}/cat.png' } }],
    });
    expect(r.status).toBe(200);
    const stored = (await get('/api/v1/sessions/c24/context')).body.result.messages[0].parts[0];
    expect([before, today()].map((d) => `viking://resources/photos/${d}/cat.png`)).toContain(stored.image_url.url);
  });

  it('POST …/extract: memories from the live messages now, nothing archived, the diff under manual_extract/', async () => {
    expect((await post('/api/v1/sessions/nope-x/extract')).status).toBe(404);
    // The session's policy does not apply to a manual extraction (as in the reference).
    await post('/api/v1/sessions', { session_id: 'mx', memory_policy: { memory_types: ['profile'] } });
    await post('/api/v1/sessions/mx/messages/batch', {
      messages: [
        { role: 'user', content: 'Tomorrow I visit Ysolde in Tallinn. I love old harbours.' },
        { role: 'assistant', content: 'Enjoy Tallinn and Ysolde.' },
      ],
    });
    const r = await post('/api/v1/sessions/mx/extract');
    expect(r.status).toBe(200);
    const contexts = r.body.result as { uri: string; category: string; context_type: string }[];
    expect(contexts.length).toBeGreaterThan(0);
    expect(contexts.every((c) => c.category === 'memory_write' && c.context_type === 'memory')).toBe(true);
    expect(contexts.map((c) => c.uri)).toContain('viking://user/default/memories/entities/mentioned/ysolde.md');
    expect(contexts.some((c) => c.uri.includes('/memories/events/'))).toBe(true);
    const meta = (await get('/api/v1/sessions/mx')).body.result;
    expect(meta).toMatchObject({ message_count: 2, commit_count: 0 });
    const diff = await get(
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/default/sessions/mx/manual_extract/memory_diff.json')}`,
    );
    expect(JSON.parse(diff.body.result).summary.total_adds).toBe(contexts.length);
    // Run again over the same messages: the same files, nothing changed.
    expect((await post('/api/v1/sessions/mx/extract')).body.result).toEqual([]);

    // Deleted and created again under the same id the same day, with other messages: its events are new
    // files, and the deleted session's events keep what they said.
    const isEvent = (uri: string) => uri.includes('/memories/events/');
    const read = async (uri: string) =>
      (await get(`/api/v1/content/read?uri=${encodeURIComponent(uri)}`)).body.result as string;
    const firstEvents = contexts.map((c) => c.uri).filter(isEvent);
    const firstText = await Promise.all(firstEvents.map(read));
    expect(firstText.every((t) => t.includes('Tallinn'))).toBe(true);
    expect((await app.request('DELETE', '/api/v1/sessions/mx')).status).toBe(200);
    await post('/api/v1/sessions/mx/messages/batch', {
      messages: [
        { role: 'user', content: 'Next week I fly to Reykjavik with Brannoch.' },
        { role: 'assistant', content: 'Safe travels to Reykjavik.' },
      ],
    });
    const again = (await post('/api/v1/sessions/mx/extract')).body.result as typeof contexts;
    const newEvents = again.filter((c) => isEvent(c.uri));
    expect(newEvents.length).toBeGreaterThan(0);
    expect(newEvents.every((c) => c.category === 'memory_write' && !firstEvents.includes(c.uri))).toBe(true);
    expect(await Promise.all(firstEvents.map(read))).toEqual(firstText);
    expect(await read(newEvents[0].uri)).toContain('Reykjavik');
  });
});

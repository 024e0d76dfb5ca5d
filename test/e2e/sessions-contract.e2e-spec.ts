import { estimateTokens } from '@app/kernel';
import { startTestApp, TestApp } from '@app/testing';
import { eventually } from './sessions-support';

/**
 * The contract's black-box session cases (docs/sessions.md), each test named by its case number;
 * the server default policy is off here (sessions-cases covers it on).
 */
describe('sessions: contract cases, create/read/messages/tasks', () => {
  let app: TestApp;
  const post = (path: string, body?: unknown) => app.request('POST', path, { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);
  const meta = async (sid: string) => (await get(`/api/v1/sessions/${sid}`)).body.result;
  const task = (id: string) =>
    eventually(async () => {
      const r = (await get(`/api/v1/tasks/${id}`)).body.result;
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });

  beforeAll(async () => {
    app = await startTestApp({ env: { MUNINN_OUTBOX_GRACE_MS: '300', MUNINN_OUTBOX_POLL_MS: '100' } });
  }, 60_000);
  afterAll(() => app?.close());

  it('case 1: POST {} generates YYYYMMDD-HHMMSS-<16hex>, canonical uri, user, no policy, no tags', async () => {
    const r = await post('/api/v1/sessions');
    expect(r.status).toBe(200);
    const s = r.body.result;
    expect(s.session_id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{16}$/);
    expect(s).toEqual({
      session_id: s.session_id,
      uri: `viking://user/default/sessions/${s.session_id}`,
      user: { account_id: 'default', user_id: 'default' },
      auto_commit_policy: null,
      memory_extraction_config: { events: { tags: [] } },
    });
  });

  it('case 2: the same session_id twice → 409 ALREADY_EXISTS', async () => {
    expect((await post('/api/v1/sessions', { session_id: 'c2' })).status).toBe(200);
    const again = await post('/api/v1/sessions', { session_id: 'c2' });
    expect([again.status, again.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
    expect(again.body.error.message).toContain('already exists');
  });

  it('case 3: an unknown key ({"user":"test"}) is ignored', async () => {
    expect((await post('/api/v1/sessions', { user: 'test' })).status).toBe(200);
  });

  it('case 4: a partial policy is filled with the defaults, in create and GET', async () => {
    const want = {
      pending_token_threshold: 8000,
      message_count_threshold: 100,
      idle_timeout_seconds: 86400,
      keep_recent_count: 10,
      min_commit_interval_seconds: 0,
    };
    const r = await post('/api/v1/sessions', {
      session_id: 'c4',
      auto_commit_policy: { pending_token_threshold: 8000, keep_recent_count: 10 },
    });
    expect(r.body.result.auto_commit_policy).toEqual(want);
    expect((await meta('c4')).auto_commit_policy).toEqual(want);
  });

  it('case 5: out-of-range policy values are clamped, not refused', async () => {
    const big = await post('/api/v1/sessions', { auto_commit_policy: { pending_token_threshold: 10_000_000 } });
    expect(big.body.result.auto_commit_policy.pending_token_threshold).toBe(1_000_000);
    const neg = await post('/api/v1/sessions', {
      auto_commit_policy: {
        pending_token_threshold: -5,
        message_count_threshold: -5,
        idle_timeout_seconds: -5,
        keep_recent_count: -5,
        min_commit_interval_seconds: -5,
      },
    });
    expect(Object.values(neg.body.result.auto_commit_policy)).toEqual([0, 0, 0, 0, 0]);
  });

  it('cases 6 and 7: an explicit null field and an unknown key are 400', async () => {
    const nul = await post('/api/v1/sessions', { auto_commit_policy: { message_count_threshold: null } });
    expect(nul.status).toBe(400);
    expect(nul.text).toContain('auto_commit_policy=null');
    expect((await post('/api/v1/sessions', { auto_commit_policy: { enabled: true } })).status).toBe(400);
  });

  it('cases 11 and 12: tags are trimmed, lower-cased, invalid ones dropped, last key wins; no event_search_tags', async () => {
    const tags = async (list: string[]) =>
      (await post('/api/v1/sessions', { memory_extraction_config: { events: { tags: list } } })).body.result
        .memory_extraction_config.events.tags;
    expect(await tags([' Team=Search ', 'team=search', 'channel=web'])).toEqual(['team=search', 'channel=web']);
    expect(await tags(['missing-equals', 'channel=web'])).toEqual(['channel=web']);
    expect(await tags(['channel=web', 'channel=app'])).toEqual(['channel=app']);
    await post('/api/v1/sessions', { session_id: 'c12', memory_extraction_config: { events: { tags: ['a=b'] } } });
    const m = await meta('c12');
    expect(m).not.toHaveProperty('event_search_tags');
    expect(m.memory_extraction_config).toEqual({ events: { tags: ['a=b'] } });
  });

  it('case 13: GET of an unknown session is 404 "Session <id> not found"; auto_create materialises it', async () => {
    const r = await get('/api/v1/sessions/c13');
    expect([r.status, r.body.error.message]).toEqual([404, 'Session c13 not found']);
    const made = await get('/api/v1/sessions/c13?auto_create=true');
    expect(made.status).toBe(200);
    expect(made.body.result).toMatchObject({ session_id: 'c13', message_count: 0, commit_count: 0 });
  });

  it('cases 19 and 21: a message to a new id creates the session; role "system" is accepted', async () => {
    const r = await post('/api/v1/sessions/c19/messages', { role: 'user', content: 'Hello' });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ session_id: 'c19', message_count: 1 });
    expect(r.body.result.pending_tokens).toBeGreaterThan(0);
    expect((await post('/api/v1/sessions/c19/messages', { role: 'system', content: 'Be brief.' })).status).toBe(200);
  });

  it('case 22: a user message of two tool parts is stored as two messages', async () => {
    const tool = (id: string) => ({ type: 'tool', tool_id: id, tool_name: 'grep', tool_output: 'ok' });
    const r = await post('/api/v1/sessions/c22/messages', { role: 'user', parts: [tool('t1'), tool('t2')] });
    expect(r.body.result.message_count).toBe(2);
  });

  it('cases 25 and 26: peer_id is kept on the message; extra keys are ignored', async () => {
    const r = await post('/api/v1/sessions/c25/messages', {
      role: 'user',
      content: 'hi',
      peer_id: 'assistant-b',
      metadata: { a: 1 },
      auto_commit_policy: { message_count_threshold: 1 },
    });
    expect(r.status).toBe(200);
    const ctx = (await get('/api/v1/sessions/c25/context')).body.result;
    expect(ctx.messages[0].peer_id).toBe('assistant-b');
    expect((await meta('c25')).auto_commit_policy).toBeNull();
  });

  it("case 27: a batch after an add raises pending_tokens, and the batch's figure equals GET's", async () => {
    const one = await post('/api/v1/sessions/c27/messages', { role: 'user', content: 'first message here' });
    const batch = await post('/api/v1/sessions/c27/messages/batch', {
      messages: [
        { role: 'assistant', content: 'second message' },
        { role: 'user', content: 'third message' },
      ],
    });
    expect(batch.body.result.pending_tokens).toBeGreaterThan(one.body.result.pending_tokens);
    expect((await meta('c27')).pending_tokens).toBe(batch.body.result.pending_tokens);
  });

  it("case 28: a tool-only message's pending_tokens are the contract's estimate (id + name + output)", async () => {
    const output = 'x'.repeat(60) + ' result line with words '.repeat(3).slice(0, 60);
    expect(output).toHaveLength(120);
    await post('/api/v1/sessions/c28/messages', {
      role: 'assistant',
      parts: [{ type: 'tool', tool_id: 'call_7', tool_name: 'read_file', tool_output: output }],
    });
    const m = await meta('c28');
    expect(m.pending_tokens).toBe(estimateTokens(`call_7read_file${output}`));
    expect(m.pending_tokens).toBeGreaterThan(0);
  });

  it('cases 29 and 30: counters after adds and a commit', async () => {
    for (const t of ['a', 'b', 'c']) await post('/api/v1/sessions/c30/messages', { role: 'user', content: t });
    const before = await meta('c30');
    expect(before).toMatchObject({ message_count: 3, total_message_count: 3, commit_count: 0, last_commit_at: '' });
    expect(before.last_message_at).not.toBe('');
    const c = (await post('/api/v1/sessions/c30/commit')).body.result;
    expect(await meta('c30')).toMatchObject({ message_count: 0, total_message_count: 3, commit_count: 1 });
    expect((await meta('c30')).last_commit_at).not.toBe('');
    await post('/api/v1/sessions/c30/messages', { role: 'user', content: 'd' });
    expect(await meta('c30')).toMatchObject({ message_count: 1, total_message_count: 4, commit_count: 1 });
    await task(c.task_id);
  });

  it('cases 52, 55, 56, 57 and 60: task lookups, listing, distinct ids, agent evolution off, limit bound', async () => {
    expect((await get('/api/v1/tasks/nonexistent-id')).status).toBe(404);
    await post('/api/v1/sessions/c56/messages', { role: 'user', content: 'one' });
    const a = (await post('/api/v1/sessions/c56/commit')).body.result;
    await post('/api/v1/sessions/c56/messages', { role: 'user', content: 'two' });
    const b = (await post('/api/v1/sessions/c56/commit')).body.result;
    expect(a.task_id).not.toBe(b.task_id);
    const done = await task(b.task_id);
    await task(a.task_id);
    expect(done.result).toMatchObject({
      agent_evolution_enabled: false,
      agent_memory_skip_reason: 'agent_evolution_disabled',
      effective_memory_types: ['entities', 'events', 'identity', 'preferences', 'profile', 'soul'],
    });
    const listed = (await get('/api/v1/tasks?task_type=session_commit')).body.result;
    expect(listed[0].task_id).toBe(b.task_id);
    const completed = (await get('/api/v1/tasks?status=completed')).body.result;
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.every((t: { status: string }) => t.status === 'completed')).toBe(true);
    expect((await get('/api/v1/tasks?limit=201')).status).toBe(400);
  });
});

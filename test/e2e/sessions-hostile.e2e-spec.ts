import { startTestApp, TestApp } from '@app/testing';
import { rawRequest } from './hostile-support';

/** Every new session route refuses bad input with a clear 400 (or 413) naming the field, never a 500. */
describe('sessions: hostile inputs', () => {
  let app: TestApp;
  const post = (path: string, body?: unknown, raw?: string) =>
    app.request('POST', path, raw !== undefined ? { raw } : { body: body ?? {} });
  const get = (path: string) => app.request('GET', path);
  /** 400 INVALID_ARGUMENT whose message or details name `field`. */
  const refused = (r: { status: number; body: any; text: string }, field: string) => {
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_ARGUMENT');
    expect(r.text).toContain(field);
  };

  beforeAll(async () => {
    app = await startTestApp({
      env: {
        MUNINN_SESSION_MESSAGE_MAX_CHARS: '2000',
        MUNINN_SESSION_MESSAGE_MAX_PARTS: '4',
        MUNINN_SESSION_BATCH_MAX: '5',
        MUNINN_BODY_LIMIT_BYTES: '65536',
      },
    });
    await post('/api/v1/sessions', { session_id: 'h' });
  }, 60_000);
  afterAll(() => app?.close());

  it('create: bad ids, bad policies, too many tags', async () => {
    refused(await post('/api/v1/sessions', { session_id: 'a/b' }), 'session_id');
    refused(await post('/api/v1/sessions', { session_id: 'x'.repeat(129) }), 'session_id');
    refused(await post('/api/v1/sessions', { auto_commit_policy: { enabled: true } }), 'auto_commit_policy.enabled');
    refused(
      await post('/api/v1/sessions', { auto_commit_policy: { message_count_threshold: null } }),
      'auto_commit_policy=null',
    );
    refused(
      await post('/api/v1/sessions', { auto_commit_policy: { idle_timeout_seconds: 'soon' } }),
      'idle_timeout_seconds',
    );
    refused(await post('/api/v1/sessions', { auto_commit_policy: [1] }), 'auto_commit_policy');
    refused(
      await post('/api/v1/sessions', {
        memory_extraction_config: {
          events: { tags: Array.from({ length: app.config.limits.tagsMaxItems + 1 }, (_, i) => `k${i}=v`) },
        },
      }),
      'tags',
    );
    // The same configured bounds on a commit's tags, per tag too (MUNINN_TAG_MAX_CHARS).
    refused(
      await post('/api/v1/sessions/h/commit', {
        extraction_metadata: { event: { tags: [`k=${'v'.repeat(app.config.limits.tagMaxChars)}`] } },
      }),
      'tags',
    );
    refused(await post('/api/v1/sessions', undefined, '[1,2]'), 'body');
  });

  it('session ids "." and ".." are refused in the body and in the path, as peer ids are (docs/sessions.md "Session ids")', async () => {
    refused(await post('/api/v1/sessions', { session_id: '..' }), 'session_id');
    refused(await post('/api/v1/sessions', { session_id: '.' }), 'session_id');
    // Sent as is (curl --path-as-is): before, `%2E%2E` committed into viking://user/default/sessions/../history/….
    const raw = (method: string, path: string, body?: unknown) =>
      rawRequest(
        app.url,
        method,
        path,
        body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {},
      );
    for (const id of ['%2E', '%2E%2E', '%2e%2e']) {
      refused(await raw('POST', `/api/v1/sessions/${id}/messages`, { role: 'user', content: 'x' }), 'session_id');
      refused(await raw('POST', `/api/v1/sessions/${id}/commit`, {}), 'session_id');
      refused(await raw('GET', `/api/v1/sessions/${id}?auto_create=true`), 'session_id');
      refused(await raw('DELETE', `/api/v1/sessions/${id}`), 'session_id');
    }
    // Nothing was created: no such session, and no node under a `.` or `..` session directory.
    const ids = (await get('/api/v1/sessions')).body.result.map((x: { session_id: string }) => x.session_id);
    expect(ids.filter((id: string) => id === '.' || id === '..')).toEqual([]);
    const tree = await get(`/api/v1/fs/tree?uri=${encodeURIComponent('viking://user/default/sessions')}`);
    expect(tree.text).not.toContain('sessions/..');
    expect(tree.text).not.toContain('sessions/./');
    // Dots inside an id are still fine.
    expect((await post('/api/v1/sessions', { session_id: '...' })).status).toBe(200);
    expect((await post('/api/v1/sessions', { session_id: 'v1.2' })).status).toBe(200);
  });

  it('a session id of the longest allowed length (128) is addressable in the path; one longer is a 400 naming it', async () => {
    const id = 's'.repeat(128);
    expect((await post('/api/v1/sessions', { session_id: id })).status).toBe(200);
    const got = await get(`/api/v1/sessions/${id}`);
    expect([got.status, got.body.result?.session_id]).toEqual([200, id]);
    expect((await post(`/api/v1/sessions/${id}/messages`, { role: 'user', content: 'hi' })).status).toBe(200);
    refused(await get(`/api/v1/sessions/${'s'.repeat(129)}`), 'sessionId');
    refused(await get(`/api/v1/sessions/${'s'.repeat(5000)}/messages`), 'sessionId');
  });

  it('messages: missing or malformed content, bounds from config, peer ids, image parts, kinds', async () => {
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user' }),
      "Either 'content' or 'parts' must be provided",
    );
    refused(await post('/api/v1/sessions/h/messages', { role: 'user', content: { a: 1 } }), 'content');
    refused(await post('/api/v1/sessions/h/messages', { content: 'no role' }), 'role');
    refused(await post('/api/v1/sessions/h/messages', { role: 'r'.repeat(65), content: 'x' }), 'role');
    refused(await post('/api/v1/sessions/h/messages', { role: 'user', content: 'x'.repeat(2100) }), 'body.content');
    const parts = Array.from({ length: 5 }, () => ({ type: 'text', text: 'p' }));
    refused(await post('/api/v1/sessions/h/messages', { role: 'user', parts }), 'body.parts');
    refused(await post('/api/v1/sessions/h/messages', { role: 'user', parts: 'nope' }), 'parts');
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user', content: 'x', peer_id: 'web/visitor/alice' }),
      'peer_id',
    );
    refused(await post('/api/v1/sessions/h/messages', { role: 'user', content: 'x', peer_id: 'a@b@c' }), 'peer_id');
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user', parts: [{ type: 'image_url', image_url: {} }] }),
      'image_url part requires a non-empty URL',
    );
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user', content: 'x', message_kind: 'gossip' }),
      'message_kind',
    );
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user', content: 'x', created_at: 'y'.repeat(65) }),
      'created_at',
    );
    refused(
      await post('/api/v1/sessions/h/messages', {
        role: 'user',
        content: 'x',
        source_message_ids: Array(101).fill('m'),
      }),
      'source_message_ids',
    );
    refused(await post('/api/v1/sessions/bad%2Fid/messages', { role: 'user', content: 'x' }), 'session_id');
    // null is absence, not an empty message; a text part needs a string text (it stored 5 or nothing).
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user', content: null }),
      "Either 'content' or 'parts' must be provided",
    );
    refused(
      await post('/api/v1/sessions/h/messages', { role: 'user', parts: [{ type: 'text' }] }),
      'body.parts[0].text',
    );
    refused(
      await post('/api/v1/sessions/h/messages', {
        role: 'user',
        parts: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 5 },
        ],
      }),
      'body.parts[1].text',
    );
    const big = await post('/api/v1/sessions/h/messages', { role: 'user', content: 'z'.repeat(70_000) });
    expect(big.status).toBe(413);
    // Extra keys are ignored, as the plugins expect; nothing above was stored.
    const ok = await post('/api/v1/sessions/h/messages', {
      role: 'user',
      content: 'fine',
      metadata: { a: 1 },
      auto_commit_policy: {},
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.message_count).toBe(1);
    // The bound is the content's own characters: exactly 2,000 fit (the parts' JSON made it 2,027).
    const exact = await post('/api/v1/sessions/h-exact/messages', { role: 'user', content: 'e'.repeat(2000) });
    expect([exact.status, exact.body.result?.message_count]).toEqual([200, 1]);
  });

  it('batch: over the count bound; one bad item stores nothing', async () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `m${i}` }));
    refused(await post('/api/v1/sessions/h/messages/batch', { messages: six }), 'messages');
    refused(await post('/api/v1/sessions/h/messages/batch', { messages: 'x' }), 'messages');
    refused(await post('/api/v1/sessions/h/messages/batch', {}), 'messages');
    const bad = await post('/api/v1/sessions/h/messages/batch', {
      messages: [{ role: 'user', content: 'a' }, { role: 'user' }],
    });
    refused(bad, 'messages[1]');
    const tooLong = await post('/api/v1/sessions/h/messages/batch', {
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'x'.repeat(2100) },
      ],
    });
    refused(tooLong, 'messages[1].content');
    expect((await get('/api/v1/sessions/h')).body.result.message_count).toBe(1);
  });

  it('commit: keep bounds, unsupported retention, nested unknowns', async () => {
    refused(await post('/api/v1/sessions/h/commit', { keep_recent_count: -1 }), 'keep_recent_count');
    refused(await post('/api/v1/sessions/h/commit', { keep_recent_count: 10001 }), 'keep_recent_count');
    refused(await post('/api/v1/sessions/h/commit', { keep_recent_count: 'many' }), 'keep_recent_count');
    refused(await post('/api/v1/sessions/h/commit', { keep_recent_turn_count: 2 }), 'keep_recent_turn_count');
    refused(
      await post('/api/v1/sessions/h/commit', { retention_mode: 'turn_budget', retained_message_token_budget: 0 }),
      'retained_message_token_budget',
    );
    refused(
      await post('/api/v1/sessions/h/commit', { retention_mode: 'turn_budget', keep_recent_turn_count: 10001 }),
      'keep_recent_turn_count',
    );
    refused(await post('/api/v1/sessions/h/commit', { retention_mode: 'other' }), 'retention_mode');
    refused(await post('/api/v1/sessions/h/commit', { extraction_metadata: { event: { tags: 'a=b' } } }), 'tags');
    refused(await post('/api/v1/sessions/h/commit', undefined, '"text"'), 'body');
    // Nothing was archived by the refused commits.
    expect((await get('/api/v1/sessions/h')).body.result.commit_count).toBe(0);
  });

  it('context, archives, tasks, config: query and path bounds', async () => {
    const neg = await get('/api/v1/sessions/unknown/context?token_budget=-1');
    refused(neg, 'token_budget');
    expect(neg.body.error.details).toMatchObject({ field: 'token_budget', value: -1 });
    expect(neg.body.error.message).toBe('token_budget must be greater than or equal to 0');
    refused(await get('/api/v1/sessions/h/context?token_budget=abc'), 'token_budget');
    refused(await get('/api/v1/sessions/h/context?token_budget=99999999999'), 'token_budget');
    const nf = await get('/api/v1/sessions/unknown/context');
    expect(nf.status).toBe(404);
    expect(nf.body.error.message).toContain('Session not found');
    refused(await get(`/api/v1/sessions/h/archives/${'a'.repeat(40)}`), 'archiveId');
    expect((await get('/api/v1/sessions/h/archives/archive_001')).status).toBe(404);
    refused(await get('/api/v1/tasks?limit=201'), 'limit');
    refused(await get('/api/v1/tasks?limit=0'), 'limit');
    refused(await get(`/api/v1/tasks?status=${'s'.repeat(40)}`), 'status');
    refused(await get(`/api/v1/tasks/${'t'.repeat(65)}`), 'taskId');
    refused(await post(`/api/v1/tasks/${'t'.repeat(65)}/cancel`), 'taskId');
    refused(await post('/api/v1/sessions/a%2Fb/extract'), 'sessionId');
    expect((await post('/api/v1/sessions/unknown/extract', { junk: [1, { deep: true }] })).status).toBe(404);
    // Cancel takes no body; one sent anyway is ignored, never a 5xx (ROOT in dev mode: 403).
    expect((await post('/api/v1/tasks/x/cancel', { deep: { a: [1, 2, { b: null }] } })).status).toBe(403);
    const patch = (path: string, body: unknown) => app.request('PATCH', path, { body });
    refused(await patch('/api/v1/sessions/h/config', { foo: 1 }), 'foo');
    refused(await patch('/api/v1/sessions/h/config', { auto_commit_policy: { bogus: 1 } }), 'auto_commit_policy.bogus');
    refused(
      await post('/api/v1/sessions', { memory_policy: { memory_types: 'events' } }),
      'memory_policy.memory_types',
    );
    refused(await post('/api/v1/sessions', { memory_policy: { memory_types: [''] } }), 'memory_policy.memory_types');
    refused(await post('/api/v1/sessions', { memory_policy: { bogus: true } }), 'memory_policy.bogus');
    expect((await patch('/api/v1/sessions/nope/config', {})).status).toBe(404);
    expect((await app.request('PATCH', '/api/v1/sessions/h', { body: {} })).status).toBe(405);
  });
});

/** A session posted to for ever without a commit: bounded in messages and in tokens (docs/sessions.md, "Bounds"). */
describe('sessions: uncommitted messages are bounded', () => {
  let app: TestApp;
  const post = (path: string, body: unknown) => app.request('POST', path, { body });
  const live = async (sid: string) => (await app.request('GET', `/api/v1/sessions/${sid}`)).body.result.message_count;
  const batch = (n: number, text: (i: number) => string) => ({
    messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: text(i) })),
  });

  beforeAll(async () => {
    app = await startTestApp({
      env: { MUNINN_SESSION_MAX_LIVE_MESSAGES: '100', MUNINN_SESSION_MAX_LIVE_TOKENS: '1000' },
    });
  }, 60_000);
  afterAll(() => app?.close());

  it('past the message bound: 413 naming messages, nothing stored; a commit makes room', async () => {
    await post('/api/v1/sessions', { session_id: 'many' });
    for (let i = 0; i < 2; i++)
      expect(
        (
          await post(
            '/api/v1/sessions/many/messages/batch',
            batch(50, (j) => `m${i}-${j}`),
          )
        ).status,
      ).toBe(200);
    const over = await post('/api/v1/sessions/many/messages', { role: 'user', content: 'one more' });
    expect([over.status, over.body.error.code, over.body.error.details.field]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      'messages',
    ]);
    expect(over.body.error.message).toBe(
      'Session many would hold 101 messages (at most 100) not yet committed: commit it first (POST /api/v1/sessions/many/commit)',
    );
    expect(await live('many')).toBe(100);
    const commit = await post('/api/v1/sessions/many/commit', {});
    expect(commit.status).toBe(200);
    expect((await post('/api/v1/sessions/many/messages', { role: 'user', content: 'one more' })).status).toBe(200);
    expect(await live('many')).toBe(1);
  });

  it('past the token bound: 413 naming messages, the batch stored in none of its parts', async () => {
    await post('/api/v1/sessions', { session_id: 'long' });
    const words = (i: number) => `${'lorem ipsum dolor sit amet '.repeat(30)} ${i}`; // ~200 tokens each
    expect((await post('/api/v1/sessions/long/messages/batch', batch(4, words))).status).toBe(200);
    const over = await post('/api/v1/sessions/long/messages/batch', batch(2, words));
    expect([over.status, over.body.error.details.field]).toEqual([413, 'messages']);
    expect(over.body.error.message).toMatch(/^Session long would hold \d+ tokens \(at most 1000\) not yet committed/);
    expect(await live('long')).toBe(4);
  });
});

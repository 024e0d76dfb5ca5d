// docs/contract.md#context-request (validation and routing of /search mode="context" and /recall) over real
// HTTP in api_key mode: a user key for tenant data, the root key only for the root-key 403.
import { startTestApp, TestApp, TestResponse } from '@app/testing';
import { context, post, RECALL, SEARCH, seed } from './context-support';

const ROOT = 'root-key-for-context-tests-0123456789';
const ALLOWED_QUOTAS = 'events, entities, preferences, experiences, resources, skills';

describe('context validation and routing', () => {
  let app: TestApp;
  let alice: string;

  const search = (body: unknown, headers?: Record<string, string>) => post(app, SEARCH, body, { key: alice, headers });
  const ctx = (body: Record<string, unknown>) => context(app, body, { key: alice });
  const expectInvalid = (r: TestResponse) => {
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('error');
    expect(r.body.error.code).toBe('INVALID_ARGUMENT');
  };

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT });
    const acme = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'boss' },
    });
    const admin = acme.body.result.user_key;
    alice = (
      await app.request('POST', '/api/v1/admin/accounts/acme/users', {
        key: admin,
        body: { user_id: 'alice', role: 'user' },
      })
    ).body.result.user_key;
    await seed(
      app,
      { key: alice },
      'viking://user/alice/memories/entities/plainfox.md',
      'The plain fox named Tobias lives in the archive.',
    );
  });

  afterAll(() => app.close());

  it("a context-only field without mode → 400 naming the field and mode='context'", async () => {
    const r = await search({ query: 'hello', max_tokens: 1000 });
    expectInvalid(r);
    expect(r.text).toContain("mode='context'");
    expect(r.text).toContain('max_tokens');
    expect(r.body.error.message).toBe(
      "Invalid request parameters: body: Value error, max_tokens require mode='context'; set mode='context' or drop these fields",
    );
  });

  it('presence alone triggers (quotas:null); two fields are listed sorted', async () => {
    const nul = await search({ query: 'q', quotas: null });
    expectInvalid(nul);
    expect(nul.body.error.message).toContain("quotas require mode='context'");
    const two = await search({ query: 'q', max_tokens: 1000, dedup_turns: 2, mode: 'list' });
    expectInvalid(two);
    expect(two.body.error.details.validation_errors[0].message).toBe(
      "Value error, dedup_turns, max_tokens require mode='context'; set mode='context' or drop these fields",
    );
    expect(
      two.body.error.message.startsWith(
        "Invalid request parameters: body: Value error, dedup_turns, max_tokens require mode='context'",
      ),
    ).toBe(true);
  });

  it('context mode refuses a truthy target_uri and accepts ""', async () => {
    const bad = await ctx({ query: 'plain fox', target_uri: 'viking://user/test_user' });
    expectInvalid(bad);
    expect(bad.body.error.message).toContain("target_uri is not supported in mode='context'");
    const list = await ctx({ query: 'plain fox', target_uri: ['viking://resources'] });
    expectInvalid(list);
    const empty = await ctx({ query: 'plain fox', target_uri: '' });
    expect(empty.status).toBe(200);
    expect(empty.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(
      'viking://user/alice/memories/entities/plainfox.md',
    );
  });

  it('an empty body and a query-less context request → 400 "must not be empty"', async () => {
    for (const body of [{}, { mode: 'context' }, { mode: 'context', query: '   ' }]) {
      const r = await search(body);
      expectInvalid(r);
      expect(r.body).toMatchObject({
        result: null,
        error: { message: 'Search query or image_url must not be empty.' },
      });
    }
  });

  it('an invalid argument met by retrieval fails the context request with the 400 list mode gives', async () => {
    const bad = [
      { filter: { op: 'must', field: 'owner', conds: ['x'] } },
      { filter: { op: 'regex', field: 'uri', pattern: '(' } },
    ];
    for (const extra of bad) {
      const list = await search({ query: 'plain fox', ...extra });
      expectInvalid(list);
      for (const body of [
        { mode: 'context', query: 'plain fox', ...extra },
        { mode: 'context', query: 'plain fox', quotas: { entities: 1 }, ...extra },
      ]) {
        const r = await search(body);
        expect([body, r.status]).toEqual([body, 400]);
        expect(r.body).toMatchObject({
          status: 'error',
          result: null,
          error: { code: 'INVALID_ARGUMENT', message: list.body.error.message },
        });
      }
    }
  });

  it('unknown quota keys → 400 naming them and the six allowed keys; "memories" is not a quota key', async () => {
    const bogus = await ctx({ query: 'q', quotas: { bogus: 1, events: 1 } });
    expectInvalid(bogus);
    expect(bogus.body.error.message).toBe(
      `Invalid request parameters: body: Value error, unknown quota keys: bogus; allowed: ${ALLOWED_QUOTAS}`,
    );
    const memories = await ctx({ query: 'q', quotas: { memories: 1 } });
    expectInvalid(memories);
    expect(memories.body.error.message).toContain('unknown quota keys: memories');
  });

  it('a quota is at most 1000, as a number or a string of digits; negatives still count as 0', async () => {
    // Each quota is kept of the union of every search of the request (up to nine): 10^9 asked for nine thousand
    // candidates a bucket, and 310 digits read as Infinity (null on the wire: every search failed, the answer 200).
    for (const quotas of [{ events: 5000 }, { events: '1'.repeat(310) }]) {
      const r = await ctx({ query: 'q', quotas });
      expectInvalid(r);
      expect(r.body.error.message).toContain('quotas.events');
      expect(r.body.error.message).toContain('less than or equal to 1000');
    }
    expect((await ctx({ query: 'plain fox', quotas: { events: '1000', entities: -3 } })).status).toBe(200);
  });

  it('detail map keys may include memories; unknown keys, strings and map values → 400', async () => {
    const ok = await ctx({ query: 'plain fox', detail: { memories: 'overview' } });
    expect(ok.status).toBe(200);
    expect(ok.body.result.stats.detail).toEqual({ memories: 'overview' });
    const foo = await ctx({ query: 'q', detail: { foo: 'full' } });
    expectInvalid(foo);
    expect(foo.body.error.message).toContain(`unknown detail keys: foo; allowed: ${ALLOWED_QUOTAS}, memories`);
    expectInvalid(await ctx({ query: 'q', detail: 'summary' }));
    expectInvalid(await ctx({ query: 'q', detail: { events: 'uri' } }));
  });

  it('bounds of max_tokens, dedup_turns, rewrite_max_bullets, exclude_uris; unknown fields', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ max_tokens: 63 }, 'body.max_tokens'],
      [{ max_tokens: 32001 }, 'body.max_tokens'],
      [{ dedup_turns: -1 }, 'body.dedup_turns'],
      [{ dedup_turns: 101 }, 'body.dedup_turns'],
      [{ rewrite_max_bullets: 0 }, 'body.rewrite_max_bullets'],
      [{ rewrite_max_bullets: 21 }, 'body.rewrite_max_bullets'],
      [{ exclude_uris: Array.from({ length: 201 }, (_, i) => `viking://resources/x${i}.md`) }, 'body.exclude_uris'],
    ];
    for (const [extra, loc] of cases) {
      const r = await ctx({ query: 'q', ...extra });
      expectInvalid(r);
      expect(r.body.error.message.startsWith(`Invalid request parameters: ${loc}: `)).toBe(true);
    }
    const low = await ctx({ query: 'q', max_tokens: 63 });
    expect(low.body.error.message).toBe(
      'Invalid request parameters: body.max_tokens: Input should be greater than or equal to 64',
    );
    const at64 = await ctx({ query: 'plain fox', max_tokens: 64 });
    expect(at64.status).toBe(200);
    expect(at64.body.result.stats.max_tokens).toBe(64);
    const two00 = await ctx({
      query: 'plain fox',
      exclude_uris: Array.from({ length: 200 }, (_, i) => `viking://resources/x${i}.md`),
    });
    expect(two00.status).toBe(200);
    const extra = await ctx({ query: 'q', bogus: true });
    expectInvalid(extra);
    expect(extra.body.error.message).toContain('Extra inputs are not permitted');
    expect(extra.body.error.message).toBe('Invalid request parameters: body.bogus: Extra inputs are not permitted');
  });

  it("session_id follows the session routes' rule in context, list and /recall; no session is made of a refused one", async () => {
    const sessions = async () =>
      (await app.request('GET', '/api/v1/sessions', { key: alice })).body.result.map(
        (s: { session_id: string }) => s.session_id,
      );
    const before = await sessions();
    // Before: each of these made a session (viking://user/alice/sessions/a/b, …) that GET and DELETE refused.
    for (const id of ['a/b', '../x', '😀', 'a b', '.', '..', 'x'.repeat(129)]) {
      const r = await ctx({ query: 'plain fox', session_id: id, dedup_turns: 3 });
      expectInvalid(r);
      expect(r.body.error.message.startsWith('Invalid request parameters: body.session_id: ')).toBe(true);
      expectInvalid(await post(app, RECALL, { query: 'plain fox', session_id: id }, { key: alice }));
      const list = await search({ query: 'plain fox', session_id: id });
      expectInvalid(list);
      expect(list.text).toContain('session_id');
    }
    expect((await ctx({ query: 'q', session_id: 'a/b' })).body.error.details.validation_errors[0]).toMatchObject({
      loc: ['body', 'session_id'],
      type: 'string_pattern_mismatch',
    });
    expect(await sessions()).toEqual(before);
    // No session, and the ids the plugins send (docs/contract.md, "Context request body"), still work.
    expect((await ctx({ query: 'plain fox', session_id: '' })).status).toBe(200);
    expect((await ctx({ query: 'plain fox', session_id: null })).status).toBe(200);
    const plugin = 'cc-7f3e1c2a-9b8d-4e6f-a1b2-c3d4e5f60718';
    expect((await ctx({ query: 'plain fox', session_id: plugin, dedup_turns: 3 })).status).toBe(200);
    expect(
      (await post(app, RECALL, { query: 'plain fox', session_id: 'v1.session@host' }, { key: alice })).status,
    ).toBe(200);
    expect(await sessions()).toEqual(expect.arrayContaining([plugin, 'v1.session@host']));
    // The bound is in the OpenAPI document.
    const doc = (await app.request('GET', '/openapi.json')).body;
    for (const schema of ['ContextSearchRequestDto', 'RecallRequestDto', 'SearchListRequestDto'])
      expect(new RegExp(doc.components.schemas[schema].properties.session_id.pattern).test('a/b')).toBe(false);
  });

  it('validation errors are 400 (never 422) with loc starting "body" and the "Invalid request parameters: " prefix', async () => {
    for (const body of [
      { mode: 'context', query: 'q', max_tokens: 10 },
      { query: 'q', quotas: {} },
      { mode: 'context', query: 'q', purpose: 'fun' },
    ]) {
      const r = await search(body);
      expect(r.status).toBe(400);
      expect(r.body.status).toBe('error');
      expect(r.body.error.message.startsWith('Invalid request parameters: ')).toBe(true);
      expect(r.body.error.details.validation_errors[0].loc[0]).toBe('body');
      expect(r.body).not.toHaveProperty('result');
    }
  });

  it('inert fields are reported in stats.ignored, not rejected', async () => {
    const level = await ctx({ query: 'plain fox', level: 1 });
    expect(level.status).toBe(200);
    expect(level.body.result.stats.ignored).toEqual(['level']);
    const purposeLimit = await ctx({ query: 'plain fox', purpose: 'coding', limit: 1 });
    expect(purposeLimit.body.result.stats.ignored).toEqual(['limit']);
    const quotasNodeLimit = await ctx({ query: 'plain fox', quotas: { entities: 1 }, node_limit: 3 });
    expect(quotasNodeLimit.body.result.stats.ignored).toEqual(['limit']);
    const both = await ctx({ query: 'plain fox', quotas: { entities: 1 }, level: '0,2', limit: 4 });
    expect(both.body.result.stats.ignored).toEqual(['level', 'limit']);
    const flat = await ctx({ query: 'plain fox', limit: 5 });
    expect(flat.status).toBe(200);
    expect(flat.body.result.stats).not.toHaveProperty('ignored');
  });

  it('/search list mode, mode omitted or "list", answers identical JSON without a rendered key', async () => {
    const omitted = await search({ query: 'plain fox' });
    const list = await search({ query: 'plain fox', mode: 'list' });
    expect(omitted.status).toBe(200);
    expect(omitted.body.result.total).toBeGreaterThan(0);
    expect(list.text).toBe(omitted.text);
    expect(omitted.text).not.toContain('rendered');
    expect(Object.keys(omitted.body.result)).toEqual(['memories', 'resources', 'skills', 'total']);
  });

  it('/recall requires query and refuses limit and unknown quota keys', async () => {
    const noQuery = await post(app, RECALL, { max_chars: 100 }, { key: alice });
    expectInvalid(noQuery);
    expect(noQuery.body.error.message).toBe('Invalid request parameters: body.query: Field required');
    const limit = await post(app, RECALL, { query: 'q', limit: 5 }, { key: alice });
    expectInvalid(limit);
    expect(limit.body.error.message).toBe('Invalid request parameters: body.limit: Extra inputs are not permitted');
    const bogus = await post(app, RECALL, { query: 'q', quotas: { bogus: 1 } }, { key: alice });
    expectInvalid(bogus);
    expect(bogus.body.error.message).toContain('unknown quota keys: bogus');
    for (const field of ['filter', 'target_uri', 'image_url', 'context_type']) {
      const r = await post(app, RECALL, { query: 'q', [field]: null }, { key: alice });
      expectInvalid(r);
    }
  });

  it('the root key on /search in context mode (and on /recall) → 403 PERMISSION_DENIED', async () => {
    for (const [path, body] of [
      [SEARCH, { mode: 'context', query: 'plain fox' }],
      [RECALL, { query: 'plain fox' }],
    ] as const) {
      const r = await post(app, path, body, { key: ROOT });
      expect(r.status).toBe(403);
      expect(r.body.status).toBe('error');
      expect(r.body.error.code).toBe('PERMISSION_DENIED');
      expect(r.body.error.message).toContain('ROOT API keys cannot access tenant-scoped data APIs');
    }
  });

  it('an actor peer header with a slash → 400', async () => {
    for (const actor of ['a/b', 'a\\b', '..', 'a@b@c']) {
      const r = await search({ mode: 'context', query: 'plain fox' }, { 'x-openviking-actor-peer': actor });
      expectInvalid(r);
    }
    const fine = await search({ mode: 'context', query: 'plain fox' }, { 'x-openviking-actor-peer': ' p1 ' });
    expect(fine.status).toBe(200);
  });
});

// Property-based fuzzing of every route's body, query string and headers (fast-check): whatever
// arrives, the answer is never a 5xx, always the contract's envelope, and always comes back within
// the request deadline. Field names are drawn from the routes' own fields, so the values reach the
// validators and services rather than stopping at "unknown field".
import fc from 'fast-check';
import { ACCOUNT_LIMITS, AccountLimitName } from '@app/kernel';
import { parseMcpBody, startTestApp, TestApp } from '@app/testing';

const DEADLINE_MS = 3000;
// The answer must come back within the deadline plus time to spare for a busy test machine.
const ANSWER_WITHIN_MS = DEADLINE_MS + 20000;
const RUNS = Number(process.env.MUNINN_FUZZ_RUNS ?? 40);

const FIELDS = [
  'uri',
  'contexts',
  'skill',
  'input',
  'output',
  'success',
  'content',
  'mode',
  'wait',
  'timeout',
  'tags',
  'root_uri',
  'operations',
  'content_base64',
  'query',
  'target_uri',
  'exclude_uris',
  'limit',
  'node_limit',
  'score_threshold',
  'min_score',
  'filter',
  'context_type',
  'session_id',
  'max_tokens',
  'max_chars',
  'detail',
  'detail_by_category',
  'quotas',
  'purpose',
  'peer_scope',
  'render',
  'rewrite',
  'dedup_turns',
  'since',
  'until',
  'time_field',
  'level',
  'recursive',
  'description',
  'role',
  'parts',
  'peer_id',
  'image_url',
  'telemetry',
  'include_provenance',
  'query_expansion',
  'op',
  'field',
  'conds',
  'pattern',
  'account_id',
  'admin_user_id',
  'user_id',
  'seed',
  'constructor',
  '__proto__',
  'toString',
  // fs, grep/glob, set_tags, mv and the MCP tools' arguments (docs/fs-and-mcp.md)
  'uris',
  'from_uri',
  'to_uri',
  'level_limit',
  'case_insensitive',
  'exclude_uri',
  'tag_mode',
  'dry_run',
  'processing_mode',
  'old_string',
  'new_string',
  'replace_all',
  'messages',
  'path',
  'temp_file_id',
  'to',
  'parent',
  'watch_interval',
  'add_type',
  'include_abstract',
  // an account's own limits (docs/limits-and-security.md, "Per-account limits")
  'requests_per_minute',
  'model_tokens_per_day',
  'max_nodes',
  'max_content_bytes',
  // an account's suspension (docs/limits-and-security.md, "Suspending an account")
  'suspended',
  'reason',
];

const ROUTES: { method: string; path: string }[] = [
  { method: 'POST', path: '/api/v1/content/write' },
  { method: 'POST', path: '/api/v1/content/batch-write' },
  { method: 'POST', path: '/api/v1/content/reindex' },
  { method: 'POST', path: '/api/v1/search/find' },
  { method: 'POST', path: '/api/v1/search/search' },
  { method: 'POST', path: '/api/v1/search/recall' },
  { method: 'POST', path: '/api/v1/fs/mkdir' },
  { method: 'POST', path: '/api/v1/sessions' },
  { method: 'POST', path: '/api/v1/sessions/fz/messages' },
  { method: 'POST', path: '/api/v1/sessions/fz/used' },
  { method: 'POST', path: '/api/v1/tasks/fz-task/cancel' },
  { method: 'POST', path: '/api/v1/admin/accounts' },
  { method: 'POST', path: '/api/v1/search/grep' },
  { method: 'POST', path: '/api/v1/search/glob' },
  { method: 'POST', path: '/api/v1/fs/mv' },
  { method: 'POST', path: '/api/v1/fs/attrs/set_tags' },
  { method: 'POST', path: '/api/v1/content/set_tags' },
  { method: 'POST', path: '/api/v1/resources/temp_upload' },
];
const GETS = [
  '/api/v1/content/read',
  '/api/v1/content/abstract',
  '/api/v1/content/overview',
  '/api/v1/fs/ls',
  '/api/v1/fs/stat',
  '/api/v1/fs/tree',
  '/api/v1/fs/attrs',
  '/api/v1/content/download',
];

/** Strings that tend to break things: URIs and their tricks, control characters, long runs, regexes. */
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    'viking://',
    'viking://~/memories/x.md',
    'viking://resources/../user/other',
    'viking://resources/%2e%2e/x',
    'viking://user/other/memories',
    'viking://resources/a\u0000b',
    '\u0000',
    'viking://resources//x',
    '~',
    'context',
    'list',
    'create',
    'append',
    'replace',
    'memory',
    'full',
    '(a+)+$',
    '^(.*)\\1$',
    'k=v',
    '',
  ),
  fc.string({ maxLength: 8 }).map((s) => `viking://resources/${s}`),
  fc.integer({ min: 1, max: 20000 }).map((n) => 'w'.repeat(n)),
);

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    nasty,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 6 })), tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** A body: usually an object of the routes' field names, sometimes any JSON at all, sometimes not JSON. */
const body = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
);

const headers = fc.record(
  {
    'x-openviking-actor-peer': nasty,
    'x-openviking-account': fc.string({ maxLength: 10 }),
    'x-openviking-user': fc.string({ maxLength: 10 }),
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/vnd.x+json',
    ),
    origin: fc.constantFrom('http://localhost:3000', 'https://evil.example', 'null'),
    // A few keys reused across routes and bodies: replays, 422 for another request, malformed keys.
    'idempotency-key': fc.oneof(nasty, fc.constantFrom('k-1', 'k-2', 'k-3')),
  },
  { requiredKeys: [] },
);

/** Header values must be legal on the wire (the HTTP client refuses others before sending). */
function wireSafe(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (/^[\x20-\x7e]*$/.test(v)) out[k] = v;
  return out;
}

/** A counterexample's long strings, cut for the report (fast-check prints them whole). */
function short(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
}

function assertEnvelope(route: string, status: number, text: string): void {
  expect([route, status < 500, short(text)]).toEqual([route, true, short(text)]);
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${route}: ${status} answer is not JSON: ${short(text)}`);
  }
  if (parsed.status === 'ok') {
    expect([route, 'result' in parsed]).toEqual([route, true]);
    return;
  }
  expect([route, status, parsed.status, typeof parsed.error?.code, typeof parsed.error?.message, short(text)]).toEqual([
    route,
    status,
    'error',
    'string',
    'string',
    short(text),
  ]);
}

describe('fuzzing every route (fast-check)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      env: { MUNINN_REQUEST_DEADLINE_MS: String(DEADLINE_MS), MUNINN_WRITE_WAIT_MS: String(DEADLINE_MS) },
    });
  });

  afterAll(() => app.close());

  const send = async (method: string, path: string, h: Record<string, string>, payload?: string) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: h,
      body: payload,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
  };

  it.each(ROUTES)('$method $path: bodies and headers', async ({ method, path }) => {
    await fc.assert(
      fc.asyncProperty(body, headers, async (payload, h) => {
        const r = await send(method, path, wireSafe({ 'content-type': 'application/json', ...h }), payload);
        assertEnvelope(path, r.status, r.text);
      }),
      // Counterexamples CI found once are replayed on every run, whatever the seed.
      { numRuns: RUNS, examples: [['{"uri":[{"constructor":"viking://"}]}', {}]] },
    );
  });

  it.each(GETS)('GET %s: query strings and headers', async (path) => {
    const query = fc.dictionary(
      fc.constantFrom(
        'uri',
        'limit',
        'offset',
        'recursive',
        'simple',
        'sort_by',
        'sort_order',
        'abs_limit',
        'raw',
        'output',
        'level_limit',
        'node_limit',
        'show_all_hidden',
        'x',
      ),
      nasty,
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(query, headers, async (q, h) => {
        const r = await send('GET', `${path}?${new URLSearchParams(q as Record<string, string>)}`, wireSafe(h));
        // A download's success is the raw bytes; everything else is the envelope.
        if (r.status === 200 && r.contentType === 'application/octet-stream') return;
        assertEnvelope(path, r.status, r.text);
      }),
      { numRuns: RUNS },
    );
  });

  it('DELETE /api/v1/fs and session routes: query strings and path parameters', async () => {
    await fc.assert(
      fc.asyncProperty(nasty, fc.constantFrom('true', 'false', 'x'), async (s, flag) => {
        const id = encodeURIComponent(s.slice(0, 200));
        const q = encodeURIComponent(s);
        for (const [method, path] of [
          ['DELETE', `/api/v1/fs?uri=${encodeURIComponent(s)}&recursive=${flag}`],
          ['GET', `/api/v1/sessions/${id}?auto_create=${flag}`],
          ['GET', `/api/v1/sessions/${id}/recall-log`],
          ['DELETE', `/api/v1/sessions/${id}`],
          ['POST', `/api/v1/tasks/${id}/cancel`],
          ['POST', `/api/v1/sessions/${id}/extract`],
          ['POST', `/api/v1/sessions/${id}/used`],
          ['PATCH', `/api/v1/sessions/${id}`],
          ['GET', `/api/v1/sessions/${id}/tool-results?tool_name=${q}&limit=${q}`],
          ['GET', `/api/v1/sessions/fz/tool-results/${id}?offset=${q}&limit=${q}&include_metadata=${flag}`],
          ['GET', `/api/v1/sessions/fz/tool-results/${id}/search?q=${q}&limit=${q}&context_chars=${q}`],
        ]) {
          const r = await send(method, path, {});
          assertEnvelope(path, r.status, r.text);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('POST /api/v1/resources/temp_upload: links minted for fuzzed paths, then fuzzed multipart bytes and tokens', async () => {
    const mint = async (path: unknown) => {
      const r = await send(
        'POST',
        '/mcp',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'add_resource', arguments: { path } },
        }),
      );
      expect(r.status < 500).toBe(true);
      const [msg] = parseMcpBody(r.contentType, r.text);
      const text: string = msg?.result?.content?.[0]?.text ?? '';
      return /temp_upload\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;
    };
    await fc.assert(
      fc.asyncProperty(
        nasty,
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom('b0undary', 'other', ''),
        fc.option(nasty),
        async (path, bytes, boundary, forged) => {
          const token = forged ?? (await mint(path)) ?? 'none';
          const body = Buffer.concat([
            Buffer.from(`--b0undary\r\ncontent-disposition: form-data; name="file"; filename="f.md"\r\n\r\n`),
            Buffer.from(bytes),
            Buffer.from('\r\n--b0undary--\r\n'),
          ]);
          const res = await fetch(`${app.url}/api/v1/resources/temp_upload?token=${encodeURIComponent(token)}`, {
            method: 'POST',
            headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
            body,
            signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
          });
          assertEnvelope('temp_upload', res.status, await res.text());
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /mcp: JSON-RPC messages and batches with fuzzed tool arguments answer in JSON-RPC, never a 5xx', async () => {
    const call = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.integer({ min: 1, max: 1000 }),
      method: fc.constantFrom('tools/call', 'tools/list', 'ping', 'initialize', 'nope'),
      params: fc.record(
        {
          name: fc.constantFrom(
            'search',
            'find',
            'read',
            'recall',
            'list',
            'tree',
            'write',
            'edit',
            'grep',
            'glob',
            'forget',
            'remember',
            'add_resource',
            'list_watches',
            'cancel_watch',
            'health',
            'x',
          ),
          arguments: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 5 }),
          // A writing tool's idempotency key (docs/fs-and-mcp.md, "Retrying a tool call"), of any shape.
          _meta: fc.dictionary(fc.constantFrom('muninn/idempotency_key', 'progressToken', 'x'), value, { maxKeys: 2 }),
        },
        { requiredKeys: ['name', 'arguments'] },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(call, fc.array(call, { minLength: 1, maxLength: 20 })), async (msg) => {
        const r = await send(
          'POST',
          '/mcp',
          { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          JSON.stringify(msg),
        );
        expect(r.status < 500).toBe(true);
        // One SSE `message` event per JSON-RPC answer, or a JSON error body before the transport; a tool's
        // failure names what was wrong, never the opaque internal error.
        expect(() => parseMcpBody(r.contentType, r.text)).not.toThrow();
        expect(r.text).not.toContain('Internal server error');
      }),
      { numRuns: RUNS },
    );
  });

  it('is still healthy afterwards', async () => {
    const r = await fetch(`${app.url}/health`);
    expect(r.status).toBe(200);
  });
});

describe('fuzzing keys and headers in api_key mode (fast-check)', () => {
  const ROOT = 'fuzz-root-key-0123456789';
  let app: TestApp;
  let userKey: string;

  beforeAll(async () => {
    app = await startTestApp({
      rootApiKey: ROOT,
      env: { MUNINN_RATE_KEY_PER_MINUTE: '100000', MUNINN_RATE_ACCOUNT_PER_MINUTE: '100000' },
    });
    const r = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'fz', admin_user_id: 'boss' },
    });
    userKey = r.body.result.user_key;
  });

  afterAll(() => app.close());

  it('any X-API-Key / Authorization value, on any route: an envelope, never a 5xx', async () => {
    const key = fc.oneof(
      nasty,
      fc.constantFrom(ROOT, 'Bearer x', 'Bearer  ', 'Basic abc'),
      fc
        .string({ maxLength: 12 })
        .map(
          (s) => `${Buffer.from('fz').toString('base64url')}.${Buffer.from(s).toString('base64url')}.${'0'.repeat(64)}`,
        ),
      fc.constant('__valid__'),
    );
    const route = fc.constantFrom(
      ...ROUTES.map((r) => r.path),
      '/api/v1/system/status',
      '/api/v1/admin/accounts/fz/users',
    );
    await fc.assert(
      fc.asyncProperty(key, fc.boolean(), route, body, async (k, bearer, path, payload) => {
        const value = k === '__valid__' ? userKey : k;
        const auth: Record<string, string> = bearer ? { authorization: `Bearer ${value}` } : { 'x-api-key': value };
        const method = path.endsWith('status') || path.endsWith('/users') ? 'GET' : 'POST';
        const r = await fetch(`${app.url}${path}`, {
          method,
          headers: wireSafe({ 'content-type': 'application/json', ...auth }),
          body: method === 'POST' ? payload : undefined,
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        assertEnvelope(path, r.status, await r.text());
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it("GET an account's audit trail with fuzzed paging and path, as root and as its admin: an envelope, never a 5xx", async () => {
    const param = fc.oneof(nasty, fc.integer().map(String), fc.double().map(String), fc.constant(''));
    await fc.assert(
      fc.asyncProperty(
        param,
        param,
        fc.oneof(fc.constant('fz'), nasty),
        fc.boolean(),
        async (limit, before, account, asRoot) => {
          const query = `limit=${encodeURIComponent(limit)}&before=${encodeURIComponent(before)}`;
          const r = await fetch(`${app.url}/api/v1/admin/accounts/${encodeURIComponent(account)}/audit?${query}`, {
            headers: { 'x-api-key': asRoot ? ROOT : userKey },
            signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
          });
          const text = await r.text();
          assertEnvelope('GET audit', r.status, text);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('GET the accounts with fuzzed paging as root and as an admin: an envelope, never a 5xx; a page never over its limit', async () => {
    const param = fc.oneof(nasty, fc.integer().map(String), fc.constant(''), fc.constant('fz'));
    await fc.assert(
      fc.asyncProperty(param, param, fc.boolean(), async (limit, after, asRoot) => {
        const query = `limit=${encodeURIComponent(limit)}&after=${encodeURIComponent(after)}`;
        const r = await fetch(`${app.url}/api/v1/admin/accounts?${query}`, {
          headers: { 'x-api-key': asRoot ? ROOT : userKey },
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await r.text();
        assertEnvelope('GET accounts', r.status, text);
        const asked = /^\d+$/.test(limit) ? Number(limit) : 1000;
        if (r.status === 200) expect(JSON.parse(text).result.length).toBeLessThanOrEqual(asked);
      }),
      { numRuns: RUNS },
    );
  });

  it("GET an account's or a user's export with fuzzed ids, as root and as an admin: NDJSON ending in its end line, or an envelope; never a 5xx", async () => {
    const user = fc.option(fc.oneof(fc.constant('boss'), nasty), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constant('fz'), nasty), user, fc.boolean(), async (account, userId, asRoot) => {
        const who = userId === undefined ? '' : `/users/${encodeURIComponent(userId)}`;
        const r = await fetch(`${app.url}/api/v1/admin/accounts/${encodeURIComponent(account)}${who}/export`, {
          headers: { 'x-api-key': asRoot ? ROOT : userKey },
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await r.text();
        if (r.status !== 200) return assertEnvelope('GET export', r.status, text);
        const lines = text
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect([lines[0].type, lines[0].account_id, lines[lines.length - 1].type]).toEqual(['account', account, 'end']);
        if (userId !== undefined) expect(lines[0].users.map((u: { user_id: string }) => u.user_id)).toEqual([userId]);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST an import of fuzzed exports (lines valid, mutated or not JSON) as root: an envelope, never a 5xx; whole or nothing', async () => {
    const at = '2026-12-04T10:00:00.000Z';
    const line = fc.oneof(
      fc.constant({ type: 'account', format: 1, users: [{ user_id: 'u1', role: 'user' }], limits: {} }),
      fc.record({
        type: fc.constant('node'),
        uri: fc.oneof(nasty, fc.constantFrom('viking://resources/a.md', 'viking://user/u1/memories/b.md')),
        kind: fc.constantFrom('file', 'directory', 'x'),
        tags: fc.oneof(fc.constant([]), fc.array(nasty, { maxLength: 3 })),
        created_at: fc.oneof(fc.constant(at), nasty),
        updated_at: fc.constant(at),
        content: fc.oneof(nasty, value),
      }),
      fc.record({
        type: fc.constant('session'),
        user_id: fc.constantFrom('u1', 'u2'),
        session_id: fc.oneof(fc.constant('s1'), nasty),
        created_at: fc.constant(at),
        updated_at: fc.constant(at),
        commit_count: fc.oneof(fc.integer(), value),
        event_tags: fc.constant([]),
        // The session's settings and counters (each optional in an export): fuzzed policies and numbers.
        auto_commit_policy: fc.oneof(
          fc.constant(null),
          fc.record({ idle_timeout_seconds: fc.oneof(fc.integer(), value) }),
          value,
        ),
        memory_policy: fc.oneof(
          fc.constant(null),
          fc.record({ memory_types: fc.oneof(fc.array(nasty), value) }),
          value,
        ),
        retention_mode: fc.oneof(fc.constantFrom('', 'turn_budget'), nasty),
        min_raw_tail_steps: fc.oneof(fc.integer(), value),
        last_commit_at: fc.oneof(fc.constant(null), fc.constant(at), nasty),
        llm_token_usage: fc.oneof(fc.constant({ total_tokens: 3 }), fc.dictionary(nasty, value, { maxKeys: 2 }), value),
      }),
      fc.record({
        type: fc.constant('message'),
        user_id: fc.constant('u1'),
        session_id: fc.constant('s1'),
        seq: fc.oneof(fc.integer({ min: -1, max: 5 }), value),
        message_id: fc.oneof(fc.constant('m1'), nasty),
        role: fc.oneof(fc.constant('user'), nasty),
        content: fc.oneof(nasty, value),
        parts: fc.oneof(fc.constant(null), value),
        created_at: fc.constant(at),
      }),
      fc.record({
        type: fc.constant('end'),
        nodes: fc.integer({ min: 0, max: 2 }),
        sessions: fc.integer({ min: 0, max: 1 }),
        archives: fc.constant(0),
        messages: fc.integer({ min: 0, max: 1 }),
      }),
      fc.dictionary(fc.constantFrom('type', 'format', 'uri', 'users', 'seq'), value, { maxKeys: 4 }),
    );
    const export_ = fc.array(
      fc.oneof({ weight: 8, arbitrary: line.map((l) => JSON.stringify(l)) }, { weight: 1, arbitrary: nasty }),
      { maxLength: 6 },
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(export_, fc.oneof(fc.constant(''), nasty), async (lines, suffix) => {
        const account = `imp${n++}${suffix ? encodeURIComponent(suffix.slice(0, 20)) : ''}`;
        const r = await fetch(`${app.url}/api/v1/admin/accounts/${account}/import`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson', 'x-api-key': ROOT },
          body: lines.join('\n'),
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await r.text();
        assertEnvelope('POST import', r.status, text);
        const after = await fetch(`${app.url}/api/v1/admin/accounts/${account}`, { headers: { 'x-api-key': ROOT } });
        // Whole or nothing: an import that was refused left no account behind.
        if (r.status === 200) expect(after.status).toBe(200);
        else expect(after.status).not.toBe(200);
      }),
      {
        numRuns: RUNS,
        examples: [
          [
            [
              JSON.stringify({ type: 'account', format: 1, users: [], limits: {} }),
              '{"type":"end","nodes":0,"sessions":0,"archives":0,"messages":0}',
            ],
            '',
          ],
        ],
      },
    );
  });

  it("PUT an account's limits as root, fuzzed: 200 or 400 in the envelope, and what is stored stays within every bound", async () => {
    const limits = fc.record(
      {
        requests_per_minute: value,
        model_tokens_per_day: value,
        max_nodes: value,
        max_content_bytes: value,
        max_inflight: value,
        other: value,
      },
      { requiredKeys: [] },
    );
    const payload = fc.oneof(
      { weight: 4, arbitrary: limits.map((o) => JSON.stringify(o)) },
      { weight: 1, arbitrary: body },
    );
    await fc.assert(
      fc.asyncProperty(payload, async (sent) => {
        const r = await fetch(`${app.url}/api/v1/admin/accounts/fz/limits`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-api-key': ROOT },
          body: sent,
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await r.text();
        assertEnvelope('PUT limits', r.status, text);
        expect([200, 400, 413]).toContain(r.status);
        const own = (await app.request('GET', '/api/v1/admin/accounts/fz/limits', { key: ROOT })).body.result.own;
        for (const [name, v] of Object.entries(own) as [AccountLimitName, number][]) {
          const { min, max } = ACCOUNT_LIMITS[name];
          expect([name, Number.isSafeInteger(v) && v >= min && v <= max]).toEqual([name, true]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('rotations with a fuzzed grace, then the kept key stopped for fuzzed user ids: an envelope, never a 5xx; the key in use keeps working', async () => {
    const user = await app.request('POST', '/api/v1/admin/accounts/fz/users', {
      key: userKey,
      body: { user_id: 'rk' },
    });
    let current = user.body.result.user_key as string;
    const grace = fc.oneof(fc.integer({ min: -10, max: 700_000 }), fc.double(), value);
    const who = fc.oneof(nasty, fc.constantFrom('rk', 'boss', 'nobody'));
    await fc.assert(
      fc.asyncProperty(grace, who, async (g, id) => {
        const r = await fetch(`${app.url}/api/v1/admin/accounts/fz/users/rk/key`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': userKey },
          body: JSON.stringify({ previous_key_valid_s: g }),
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await r.text();
        assertEnvelope('POST key', r.status, text);
        expect([200, 400]).toContain(r.status);
        if (r.status === 200) current = JSON.parse(text).result.user_key;
        const d = await fetch(`${app.url}/api/v1/admin/accounts/fz/users/${encodeURIComponent(id)}/previous-key`, {
          method: 'DELETE',
          headers: { 'x-api-key': userKey },
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        assertEnvelope('DELETE previous-key', d.status, await d.text());
        expect((await app.request('GET', '/api/v1/fs/ls?uri=viking://resources', { key: current })).status).toBe(200);
      }),
      { numRuns: RUNS },
    );
  });

  it("PUT an account's suspension as root, fuzzed: 200 or 400 in the envelope, and the account is in service or suspended with a bounded reason", async () => {
    await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'fz-s', admin_user_id: 'boss' },
    });
    const suspension = fc.record(
      {
        suspended: fc.oneof(fc.boolean(), value),
        reason: fc.oneof(fc.string({ maxLength: 600 }), value),
        other: value,
      },
      { requiredKeys: [] },
    );
    const payload = fc.oneof(
      { weight: 4, arbitrary: suspension.map((o) => JSON.stringify(o)) },
      { weight: 1, arbitrary: body },
    );
    await fc.assert(
      fc.asyncProperty(payload, async (sent) => {
        const r = await fetch(`${app.url}/api/v1/admin/accounts/fz-s/suspension`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-api-key': ROOT },
          body: sent,
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await r.text();
        assertEnvelope('PUT suspension', r.status, text);
        expect([200, 400, 413]).toContain(r.status);
        const accounts = (await app.request('GET', '/api/v1/admin/accounts', { key: ROOT })).body.result as Array<{
          account_id: string;
          suspended: { since: string; reason: string } | null;
        }>;
        const state = accounts.find((a) => a.account_id === 'fz-s')!.suspended;
        if (state)
          expect([typeof state.reason, state.reason.length <= 500, Number.isFinite(Date.parse(state.since))]).toEqual([
            'string',
            true,
            true,
          ]);
        // The other account of this suite is never touched.
        expect(accounts.find((a) => a.account_id === 'fz')!.suspended).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });
});

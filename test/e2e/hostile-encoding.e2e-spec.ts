/**
 * Hostile encodings at the request gate (docs/limits-and-security.md, "Request bounds"): unpaired
 * UTF-16 surrogates, prototype keys at any depth, the `application/…+json` media types, and identity
 * headers over the id rules.
 */
import { parseMcpBody, startTestApp, TestApp } from '@app/testing';

const WRITE = '/api/v1/content/write';
const LONE = 'a\ud800b';

describe('hostile encodings', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(() => app.close());

  /** One MCP tools/call over HTTP, the raw response (dev mode: no key). */
  const callTool = (name: string, args: Record<string, unknown>) =>
    fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });

  it('an unpaired surrogate anywhere in a body is a 400 naming the field, and nothing is stored', async () => {
    // Each of these was a 500 (PostgreSQL refused the JSON column) or stored U+FFFD instead of what was sent.
    const cases: [string, unknown, (string | number)[]][] = [
      [WRITE, { uri: 'viking://~/memories/lone.md', content: LONE, mode: 'create' }, ['body', 'content']],
      [
        WRITE,
        { uri: 'viking://~/memories/lone.md', content: 'ok', tags: ['k=\ud800'], mode: 'create' },
        ['body', 'tags', 0],
      ],
      [WRITE, { uri: 'viking://~/memories/lone\udc00.md', content: 'ok', mode: 'create' }, ['body', 'uri']],
      ['/api/v1/sessions/s-lone/messages', { role: 'user', content: LONE }, ['body', 'content']],
      [
        '/api/v1/sessions/s-lone/messages',
        { role: 'user', content: 'ok', created_at: '\ud800' },
        ['body', 'created_at'],
      ],
      [
        '/api/v1/sessions/s-lone/messages/batch',
        { messages: [{ role: 'user', content: '\udfff' }] },
        ['body', 'messages', 0, 'content'],
      ],
      [
        '/api/v1/sessions/s-lone/used',
        { skill: { uri: 'viking://agent/skills/s.md', input: LONE, output: 'y' } },
        ['body', 'skill', 'input'],
      ],
      [
        '/api/v1/search/find',
        { query: 'q', filter: { op: 'must', field: 'tags', conds: ['\ud83d'] } },
        ['body', 'filter', 'conds', 0],
      ],
      ['/api/v1/search/find', { query: 'q', [`k\ud800`]: 1 }, ['body', 'k\ud800']],
    ];
    for (const [path, body, loc] of cases) {
      const r = await app.request('POST', path, { body });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 400, 'INVALID_ARGUMENT']);
      expect([path, r.body.error.details.validation_errors[0]]).toMatchObject([
        path,
        { loc, type: 'string_unpaired_surrogate' },
      ]);
    }
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://~/memories/lone.md')).status).toBe(404);
    expect((await app.request('GET', '/api/v1/sessions/s-lone/messages')).body.result?.messages ?? []).toEqual([]);
  });

  it('a NUL in a path parameter is a 400 naming the parameter, before any store read', async () => {
    // The task and admin routes answered 500: the id reached PostgreSQL, which cannot hold a NUL in text.
    const cases: [string, string, string][] = [
      ['GET', '/api/v1/sessions/%00', 'sessionId'],
      ['GET', '/api/v1/sessions/a%00b/messages', 'sessionId'],
      ['GET', '/api/v1/tasks/%00', 'taskId'],
      ['GET', '/api/v1/admin/accounts/%00/audit', 'accountId'],
      ['GET', '/api/v1/admin/accounts/%00/export', 'accountId'],
      ['GET', '/api/v1/admin/accounts/x/users/%00', 'userId'],
    ];
    for (const [method, path, param] of cases) {
      const r = await fetch(`${app.url}${path}`, { method });
      const body = (await r.json()) as any;
      expect([path, r.status, body.error?.code, body.error?.details?.errors?.[0]?.loc ?? body.error?.message]).toEqual([
        path,
        400,
        'INVALID_ARGUMENT',
        expect.anything(),
      ]);
      expect(JSON.stringify(body.error)).toContain(param);
    }
  });

  it('well-formed pairs (emoji, astral CJK) are stored and read back as sent', async () => {
    const content = 'Likes 😀 and 𠮷野家; the pair \ud83d\ude00 again.';
    const w = await app.request('POST', WRITE, {
      body: { uri: 'viking://~/memories/pairs.md', content, tags: ['mood=😀'], mode: 'create', wait: true },
    });
    expect(w.status).toBe(200);
    const r = await app.request('GET', '/api/v1/content/read?uri=viking://~/memories/pairs.md');
    expect(r.body.result).toBe(content);
  });

  it('an MCP tool call carrying an unpaired surrogate is a JSON-RPC error naming the argument', async () => {
    const res = await callTool('remember', { content: LONE });
    expect(res.status).toBe(400);
    const [msg] = parseMcpBody(res.headers.get('content-type'), await res.text());
    expect(msg.id ?? null).toBeNull();
    expect(msg.error.message).toContain('params.arguments.content');
    expect(msg.error.message).toContain('unpaired');
  });

  it('a /mcp body that is not JSON is a JSON-RPC parse error (-32700), not the REST envelope', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const raw of ['{bad', '']) {
      const r = await app.request('POST', '/mcp', { raw, headers });
      expect([JSON.stringify(raw), r.status, r.body.jsonrpc, r.body.id, r.body.error?.code]).toEqual([
        JSON.stringify(raw),
        400,
        '2.0',
        null,
        -32700,
      ]);
      expect(r.body.status).toBeUndefined();
    }
    const proto = await app.request('POST', '/mcp', { raw: '{"jsonrpc":"2.0","id":1,"__proto__":{}}', headers });
    expect([proto.status, proto.body.error?.code]).toEqual([400, -32001]);
    expect(proto.body.error.message).toContain('__proto__');
  });

  it('MCP remember with a malformed message is a tool error naming it (an input error, not a logged 500)', async () => {
    const res = await callTool('remember', {
      messages: [
        { role: 'user', content: 'ok' },
        { role: null, content: 5 },
      ],
    });
    const [msg] = parseMcpBody(res.headers.get('content-type'), await res.text());
    expect(msg.result.isError).toBe(true);
    expect(msg.result.content[0].text).toBe(
      "Error executing tool remember: messages.1: each message needs role 'user' or 'assistant' and a string content",
    );
  });

  it('identity headers follow the id rules and MUNINN_ID_MAX_CHARS, naming the header', async () => {
    const find = (headers: Record<string, string>) =>
      app.request('POST', '/api/v1/search/find', { body: { query: 'q' }, headers });
    const cases: [Record<string, string>, string][] = [
      [{ 'x-openviking-actor-peer': 'p'.repeat(129) }, 'X-OpenViking-Actor-Peer'],
      [{ 'x-openviking-account': '..' }, 'X-OpenViking-Account'],
      [{ 'x-openviking-account': 'a'.repeat(129) }, 'X-OpenViking-Account'],
      [{ 'x-openviking-user': 'a b' }, 'X-OpenViking-User'],
    ];
    for (const [headers, field] of cases) {
      const r = await find(headers);
      expect([field, r.status, r.body.error?.code, r.body.error?.details?.field]).toEqual([
        field,
        400,
        'INVALID_ARGUMENT',
        field,
      ]);
    }
    const ok = await find({ 'x-openviking-actor-peer': 'p'.repeat(128), 'x-openviking-account': 'a'.repeat(128) });
    expect(ok.status).toBe(200);
  });

  it('a `__proto__` key at any depth is a 400 naming where, not "Body is not valid JSON"', async () => {
    const cases: [string, string, (string | number)[]][] = [
      ['/api/v1/search/find', '{"query":"q","uri":[{"__proto__":"viking://"}]}', ['body', 'uri', 0, '__proto__']],
      [
        WRITE,
        '{"uri":"viking://~/memories/p.md","content":"x","tags":[{"__proto__":1}]}',
        ['body', 'tags', 0, '__proto__'],
      ],
      ['/api/v1/search/find', '{"__proto__":{"isAdmin":true},"query":"q"}', ['body', '__proto__']],
    ];
    for (const [path, raw, loc] of cases) {
      const r = await app.request('POST', path, { raw });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 400, 'INVALID_ARGUMENT']);
      expect([path, r.body.error.details.validation_errors[0]]).toMatchObject([path, { loc, type: 'reserved_key' }]);
    }
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://~/memories/p.md')).status).toBe(404);
  });

  it('application/…+json bodies are parsed as JSON; other types stay 415', async () => {
    for (const type of ['application/vnd.api+json', 'application/problem+json; charset=utf-8']) {
      const r = await app.request('POST', '/api/v1/search/find', {
        raw: '{"query":"emoji","limit":3}',
        headers: { 'content-type': type },
      });
      expect([type, r.status, r.body.status]).toEqual([type, 200, 'ok']);
    }
    const broken = await app.request('POST', '/api/v1/search/find', {
      raw: '{"query":',
      headers: { 'content-type': 'application/problem+json' },
    });
    expect([broken.status, broken.body.error?.code]).toEqual([400, 'INVALID_ARGUMENT']);
    const text = await app.request('POST', '/api/v1/search/find', {
      raw: '{"query":"q"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
  });
});

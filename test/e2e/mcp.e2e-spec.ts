// MCP at /mcp (docs/contract.md#mcp-tools) through the SDK's own Client + StreamableHTTPClientTransport over real
// HTTP: each tool answers exactly what the REST route answers for the same request, tool defaults
// resolve like the routes with those fields omitted, and the endpoint authenticates like REST.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, TestApp } from '@app/testing';
import { contextText, listText, NO_CONTEXT_TEXT, NO_RECALL_TEXT } from '../../apps/gateway/src/mcp/tool-text';

const FIND = '/api/v1/search/find';
const SEARCH = '/api/v1/search/search';
const RECALL = '/api/v1/search/recall';

interface ToolAnswer {
  text: string;
  isError: boolean;
  structured: any;
}

async function connect(app: TestApp, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'muninn-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const r = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
    structuredContent?: unknown;
  };
  return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true, structured: r.structuredContent };
}

/** Every schema node names one explicit JSON type; no anyOf/oneOf/allOf/$ref anywhere. */
function assertExplicitTypes(schema: any, path: string): void {
  expect([path, schema.anyOf, schema.oneOf, schema.allOf, schema.$ref, schema.$defs]).toEqual([
    path,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  expect([path, typeof schema.type]).toEqual([path, 'string']);
  expect([path, 'default' in schema && schema.default === null]).toEqual([path, false]);
  for (const [k, v] of Object.entries(schema.properties ?? {})) assertExplicitTypes(v, `${path}.${k}`);
  if (schema.items) assertExplicitTypes(schema.items, `${path}[]`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    assertExplicitTypes(schema.additionalProperties, `${path}{}`);
}

describe('MCP endpoint, dev mode', () => {
  let app: TestApp;
  let client: Client;
  const rest = async (path: string, body: unknown) => {
    const r = await app.request('POST', path, { body });
    expect([path, r.status]).toEqual([path, 200]);
    return r.body.result;
  };

  beforeAll(async () => {
    app = await startTestApp({ env: { MUNINN_PUBLIC_BASE_URL: 'http://muninn.example:1933/' } });
    const write = (uri: string, content: string) =>
      app.request('POST', '/api/v1/content/write', { body: { uri, content, mode: 'create', wait: true } });
    await write(
      'viking://user/default/memories/entities/heron.md',
      'Heron Quill is the lighthouse keeper on Skerry island; she logs every storm.',
    );
    await write(
      'viking://user/default/memories/events/heron-storm.md',
      '# Summary\nHeron Quill rescued a trawler during the March storm.\n\n# 2026-03-02 ChatLog:\nlong talk about the lighthouse lamp and the storm',
    );
    await write(
      'viking://user/default/memories/preferences/heron-tea.md',
      'Heron Quill prefers smoky lapsang tea at the lighthouse.',
    );
    await write(
      'viking://resources/lighthouse/lamp-manual.md',
      '# Lamp manual\n\nThe lighthouse lamp needs a new wick every storm season.\n\n## Cleaning\n\nPolish the lens weekly.',
    );
    // Directory summaries of directories written in quick succession are coalesced ("deferred"): let
    // them settle, or a tool call and the REST call it is compared with may see different summaries.
    const abstractOf = async (uri: string) =>
      String((await app.request('GET', `/api/v1/content/abstract?uri=${encodeURIComponent(uri)}`)).body.result ?? '');
    for (let i = 0; i < 100 && !(await abstractOf('viking://user/default')).includes('memories: 3 items'); i++)
      await new Promise((r) => setTimeout(r, 100));
    client = await connect(app);
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it("lists the reference's 15 tools plus the legacy recall, with explicit-typed input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'find',
      'search',
      'read',
      'list',
      'tree',
      'remember',
      'write',
      'edit',
      'add_resource',
      'list_watches',
      'cancel_watch',
      'grep',
      'glob',
      'forget',
      'health',
      'recall',
    ]);
    for (const t of tools) assertExplicitTypes(t.inputSchema, t.name);
    const search = tools.find((t) => t.name === 'search')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'mode',
        'detail_by_category',
        'other_peer_penalty',
        'other_peer_penalties',
        'rewrite',
        'min_score',
        'exclude_uris',
      ]),
    );
    expect((search.inputSchema.properties as any).rewrite.enum).toEqual(['off', 'auto']);
    expect(search.inputSchema.required).toEqual(['query']);
  });

  it('find equals POST /find with min_score 0.35 by default', async () => {
    const got = await call(client, 'find', { query: 'Heron Quill lighthouse' });
    const want = await rest(FIND, { query: 'Heron Quill lighthouse', score_threshold: 0.35 });
    expect(got.isError).toBe(false);
    expect(got.structured).toEqual(want);
    expect(got.text).toBe(listText(want));
    expect(got.text).toContain('viking://user/default/memories/entities/heron.md');
    const limited = await call(client, 'find', {
      query: 'Heron Quill lighthouse',
      limit: 1,
      min_score: 0,
      target_uri: 'viking://user/default/memories',
    });
    expect(limited.structured).toEqual(
      await rest(FIND, {
        query: 'Heron Quill lighthouse',
        limit: 1,
        score_threshold: 0,
        target_uri: 'viking://user/default/memories',
      }),
    );
  });

  it('cases 12, 14: search in list mode equals POST /search list mode (threshold 0.35 unless min_score)', async () => {
    const got = await call(client, 'search', { query: 'lighthouse lamp wick' });
    expect(got.structured).toEqual(await rest(SEARCH, { query: 'lighthouse lamp wick', score_threshold: 0.35 }));
    const noHits = await call(client, 'search', { query: 'zzqx unmatched nonsense', min_score: 0.99 });
    expect(noHits.text).toBe(NO_CONTEXT_TEXT);
  });

  it('case 14: search in context mode equals POST /search mode=context; defaults resolve like the route with fields omitted', async () => {
    const got = await call(client, 'search', { query: 'Heron Quill storm', mode: 'context' });
    const want = await rest(SEARCH, { query: 'Heron Quill storm', mode: 'context' });
    expect(got.structured).toEqual(want);
    expect(got.text).toBe(contextText(want, NO_CONTEXT_TEXT));
    expect(got.text).toContain('<memory uri="viking://user/default/memories/');
    const s = got.structured.stats;
    expect([
      s.max_tokens,
      s.score_threshold,
      s.quotas,
      s.purpose,
      s.detail,
      s.dedup.turns,
      s.peer_scope,
      s.rewrite,
    ]).toEqual([1600, null, null, null, null, 0, 'all', 'off']);
    expect(s).not.toHaveProperty('ignored');
  });

  it('search maps detail_by_category, other_peer_penalties, min_score and the rest onto the context body', async () => {
    const args = {
      query: 'Heron Quill storm',
      mode: 'context',
      quotas: { events: 2, entities: 2, preferences: 1 },
      max_tokens: 900,
      detail_by_category: { events: 'full', entities: 'abstract' },
      other_peer_penalties: { events: 0.5 },
      min_score: 0.05,
      peer_scope: 'actor',
      exclude_uris: ['viking://~/memories/preferences/heron-tea.md'],
      query_expansion: 'off',
      rewrite_max_bullets: 3,
      limit: 4,
    };
    const got = await call(client, 'search', args);
    const want = await rest(SEARCH, {
      query: 'Heron Quill storm',
      mode: 'context',
      quotas: { events: 2, entities: 2, preferences: 1 },
      max_tokens: 900,
      detail: { events: 'full', entities: 'abstract' },
      other_peer_penalty: { events: 0.5 },
      score_threshold: 0.05,
      peer_scope: 'actor',
      exclude_uris: ['viking://~/memories/preferences/heron-tea.md'],
      query_expansion: 'off',
      rewrite_max_bullets: 3,
      limit: 4,
    });
    expect(got.structured).toEqual(want);
    expect(want.stats.detail).toEqual({ events: 'full', entities: 'abstract' });
    expect(want.stats.other_peer_penalties.events).toBe(0.5);
    expect(want.stats.score_threshold).toBe(0.05);
    expect(want.stats.ignored).toEqual(['limit']);
    expect(want.stats.excluded).toBeGreaterThanOrEqual(1);
    const scalar = await call(client, 'search', {
      query: 'Heron Quill storm',
      mode: 'context',
      detail: 'abstract',
      other_peer_penalty: 0.3,
    });
    expect(scalar.structured).toEqual(
      await rest(SEARCH, { query: 'Heron Quill storm', mode: 'context', detail: 'abstract', other_peer_penalty: 0.3 }),
    );
    expect(scalar.structured.stats.detail).toBe('abstract');
  });

  it('search rewrite:"auto" forces a rewrite (HTTP rewrite:true), unlike HTTP "auto"', async () => {
    const got = await call(client, 'search', { query: 'Heron Quill storm', mode: 'context', rewrite: 'auto' });
    const forced = await rest(SEARCH, { query: 'Heron Quill storm', mode: 'context', rewrite: true });
    expect(got.structured.stats.rewrite).toBe(forced.stats.rewrite);
    expect(got.structured.entries).toEqual(forced.entries);
    const httpAuto = await rest(SEARCH, { query: 'Heron Quill storm', mode: 'context', rewrite: 'auto' });
    expect(httpAuto.stats.rewrite).toBe('off');
    const off = await call(client, 'search', { query: 'Heron Quill storm', mode: 'context', rewrite: 'off' });
    expect(off.structured.stats.rewrite).toBe('off');
  });

  it('case 13: search errors: target_uri in context mode, detail with detail_by_category, both penalty forms, context fields in list mode', async () => {
    const target = await call(client, 'search', { query: 'q', mode: 'context', target_uri: 'viking://resources' });
    const restTarget = await app.request('POST', SEARCH, {
      body: { query: 'q', mode: 'context', target_uri: 'viking://resources' },
    });
    expect(restTarget.status).toBe(400);
    expect([target.isError, target.text]).toEqual([
      true,
      `Error executing tool search: ${restTarget.body.error.message}`,
    ]);
    const both = await call(client, 'search', {
      query: 'q',
      mode: 'context',
      detail: 'full',
      detail_by_category: { events: 'full' },
    });
    expect(both.isError).toBe(true);
    expect(both.text).toMatch(/detail_by_category/);
    const autoWithMap = await call(client, 'search', {
      query: 'Heron',
      mode: 'context',
      detail: 'auto',
      detail_by_category: { events: 'full' },
    });
    expect(autoWithMap.isError).toBe(false);
    const penalties = await call(client, 'search', {
      query: 'q',
      mode: 'context',
      other_peer_penalty: 0.2,
      other_peer_penalties: { events: 0.1 },
    });
    expect([penalties.isError, /other_peer_penalt/.test(penalties.text)]).toEqual([true, true]);
    const listWithContextField = await call(client, 'search', { query: 'q', max_tokens: 900 });
    const restList = await app.request('POST', SEARCH, {
      body: { query: 'q', max_tokens: 900, score_threshold: 0.35 },
    });
    expect([listWithContextField.isError, listWithContextField.text]).toEqual([
      true,
      `Error executing tool search: ${restList.body.error.message}`,
    ]);
    const badBudget = await call(client, 'search', { query: 'q', mode: 'context', max_tokens: 10 });
    expect(badBudget.text).toBe(
      'Error executing tool search: Invalid request parameters: body.max_tokens: Input should be greater than or equal to 64',
    );
  });

  it('recall (legacy) equals POST /recall with the fields omitted: v1 quotas, coding, 1600 tokens, threshold 0.1', async () => {
    const got = await call(client, 'recall', { query: 'Heron Quill storm' });
    const want = await rest(RECALL, { query: 'Heron Quill storm' });
    expect(got.structured).toEqual(want);
    expect(got.text).toBe(contextText(want, NO_RECALL_TEXT));
    const s = want.stats;
    expect([s.max_tokens, s.score_threshold, s.purpose, s.quotas, s.deprecated.aliases_used]).toEqual([
      1600,
      0.1,
      'coding',
      { events: 10, entities: 10, preferences: 3, experiences: 0 },
      [],
    ]);
  });

  it('recall coerces max_chars to max(1, int), degrades unknown detail strings, maps peer_scope', async () => {
    const chars = await call(client, 'recall', { query: 'Heron Quill storm', max_chars: 6500.9, min_score: 0.05 });
    expect(chars.structured).toEqual(
      await rest(RECALL, { query: 'Heron Quill storm', max_chars: 6500, min_score: 0.05 }),
    );
    expect(chars.structured.stats.max_tokens).toBe(1625);
    const tiny = await call(client, 'recall', { query: 'Heron Quill storm', max_chars: 0 });
    expect(tiny.structured.stats.max_tokens).toBe(64);
    const bogus = await call(client, 'recall', { query: 'Heron Quill storm', detail: 'verbose' });
    expect(bogus.isError).toBe(false);
    expect(bogus.structured).toEqual(await rest(RECALL, { query: 'Heron Quill storm' }));
    const pinned = await call(client, 'recall', { query: 'Heron Quill storm', detail: 'abstract' });
    expect(pinned.structured.stats.detail).toBe('abstract');
    const scope = await call(client, 'recall', { query: 'Heron Quill storm', peer_scope: 'everyone' });
    expect(scope.structured.stats.peer_scope).toBe('all');
    const none = await call(client, 'recall', { query: 'zzqx unmatched nonsense', min_score: 0.99 });
    expect(none.text).toBe(NO_RECALL_TEXT);
  });

  it('read drills into files and directories at abstract, overview and full', async () => {
    const event = 'viking://user/default/memories/events/heron-storm.md';
    const full = await call(client, 'read', { uris: event });
    const restFull = await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(event)}`);
    expect(full.text).toBe(restFull.body.result);
    const overview = await call(client, 'read', { uris: [event], level: 'overview' });
    expect(overview.text).toBe('Heron Quill rescued a trawler during the March storm.');
    const abstract = await call(client, 'read', { uris: ['viking://~/memories/entities/heron.md'], level: 'abstract' });
    expect(abstract.text).toContain('lighthouse keeper');
    const manual = await call(client, 'read', {
      uris: 'viking://resources/lighthouse/lamp-manual.md',
      level: 'overview',
    });
    expect(manual.text).toContain('# Lamp manual');
    expect(manual.text).not.toContain('Polish the lens');
    const dir = 'viking://user/default/memories/events';
    const dirAbstract = await call(client, 'read', { uris: [`${dir}/.abstract.md`], level: 'abstract' });
    const restAbstract = await app.request('GET', `/api/v1/content/abstract?uri=${encodeURIComponent(dir)}`);
    expect(dirAbstract.text).toBe(restAbstract.body.result);
    const dirFull = await call(client, 'read', { uris: [dir], level: 'full' });
    const restOverview = await app.request('GET', `/api/v1/content/overview?uri=${encodeURIComponent(dir)}`);
    expect(dirFull.text).toBe(restOverview.body.result);
    const missing = await call(client, 'read', { uris: ['viking://resources/nope.md'] });
    expect([missing.isError, missing.text]).toEqual([false, 'File not found: viking://resources/nope.md']);
    const bad = await call(client, 'read', { uris: ['viking://user/memories/x.md'] });
    expect([bad.isError, bad.text.startsWith('Invalid URI: viking://user/memories/x.md')]).toEqual([false, true]);
  });

  it("read honours the actor view like GET /content/read: another peer's entry is refused, as REST answers 403", async () => {
    const other = 'viking://user/default/peers/bob/memories/events/regatta.md';
    const w = await app.request('POST', '/api/v1/content/write', {
      body: { uri: other, content: 'Bob won the Skerry regatta.', mode: 'create', wait: true },
    });
    expect(w.status).toBe(200);
    const actor = await connect(app, { 'x-openviking-actor-peer': 'alice' });
    try {
      const context = await call(actor, 'search', { query: 'Skerry regatta', mode: 'context', quotas: { events: 3 } });
      const entry = context.structured.entries.find((e: { uri: string }) => e.uri === other);
      expect(entry?.origin).toBe('other_peer');
      const read = await call(actor, 'read', { uris: [other] });
      const rest = await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(other)}`, {
        headers: { 'x-openviking-actor-peer': 'alice' },
      });
      expect(rest.status).toBe(404); // dev mode is root: another peer is out of view, so not found
      expect(read.text).toBe(`File not found: ${other}`);
      const own = await call(client, 'read', { uris: [other] }); // no actor view: the whole peers collection
      expect([own.isError, own.text]).toEqual([false, 'Bob won the Skerry regatta.']);
      const outside = await call(actor, 'read', { uris: ['viking://user/someone-else/memories/events/x.md'] });
      // Dev mode is ROOT, so another user's missing file is simply not found.
      expect([outside.isError, outside.text]).toEqual([
        false,
        'File not found: viking://user/someone-else/memories/events/x.md',
      ]);
    } finally {
      await actor.close();
    }
  });

  it('case 6: no key in dev mode is ROOT of default/default: it reads another user of the account', async () => {
    const w = await app.request('POST', '/api/v1/content/write', {
      headers: { 'x-openviking-user': 'bob' },
      body: { uri: 'viking://user/bob/memories/events/dev-root.md', content: 'Bob wrote this.', mode: 'create' },
    });
    expect(w.status).toBe(200);
    const read = await call(client, 'read', { uris: ['viking://user/bob/memories/events/dev-root.md'] });
    expect([read.isError, read.text]).toEqual([false, 'Bob wrote this.']);
    const users = await call(client, 'list', { uri: 'viking://user' });
    expect(users.text.split('\n')).toEqual(expect.arrayContaining(['[dir] bob', '[dir] default']));
  });

  it('case 23 (differs): dev-mode ROOT expands viking://~ to its own user instead of refusing the alias', async () => {
    // Every Muninn identity has a user (dev mode: the X-OpenViking-User header or "default"), so the
    // home alias has one meaning for every role (docs/fs-and-mcp.md, "Differences").
    const r = await call(client, 'list', { uri: 'viking://~/memories' });
    expect([r.isError, r.text.split('\n')]).toEqual([false, ['[dir] entities', '[dir] events', '[dir] preferences']]);
  });

  it('case 30 (configured origin): the upload link names MUNINN_PUBLIC_BASE_URL and carries no note', async () => {
    const r = await call(client, 'add_resource', { path: 'C:\\docs\\notes.txt', parent: 'viking://resources/up' });
    expect(r.text).toContain('http://muninn.example:1933/api/v1/resources/temp_upload?token=');
    expect(r.text).not.toContain('PUBLIC_BASE_URL');
    const token = /temp_upload\?token=([A-Za-z0-9_-]+)/.exec(r.text)![1];
    const form = new FormData();
    form.append('file', new Blob(['plain notes\n']), 'notes.txt');
    const up = await fetch(`${app.url}/api/v1/resources/temp_upload?token=${token}`, { method: 'POST', body: form });
    expect([up.status, ((await up.json()) as any).result.uri]).toEqual([200, 'viking://resources/up/notes.txt']);
  });

  it('case 33: GET and DELETE /mcp answer 405 (stateless endpoint)', async () => {
    expect((await app.request('GET', '/mcp')).status).toBe(405);
    expect((await app.request('DELETE', '/mcp')).status).toBe(405);
  });

  it('is not part of the OpenAPI document', async () => {
    const doc = await app.request('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths).filter((p) => p.startsWith('/mcp'))).toEqual([]);
  });
});

describe('MCP endpoint authenticates like REST (api_key mode)', () => {
  const ROOT = 'mcp-root-key-0123456789';
  let app: TestApp;
  let aliceKey: string;

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT });
    const acme = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'boss' },
    });
    const alice = await app.request('POST', '/api/v1/admin/accounts/acme/users', {
      key: acme.body.result.user_key,
      body: { user_id: 'alice', role: 'user' },
    });
    aliceKey = alice.body.result.user_key;
    const w = await app.request('POST', '/api/v1/content/write', {
      key: aliceKey,
      body: {
        uri: 'viking://user/alice/memories/preferences/kayak.md',
        content: 'Alice paddles a red sea kayak on Sundays.',
        mode: 'create',
        wait: true,
      },
    });
    expect(w.status).toBe(200);
  });

  afterAll(() => app.close());

  it('case 6: a user key (X-API-Key or Bearer) gets its own identity; results equal REST with the same key', async () => {
    const auths: Record<string, string>[] = [{ 'x-api-key': aliceKey }, { authorization: `Bearer ${aliceKey}` }];
    for (const headers of auths) {
      const client = await connect(app, headers);
      const got = await call(client, 'search', { query: 'red sea kayak', mode: 'context' });
      const want = await app.request('POST', SEARCH, {
        key: aliceKey,
        body: { query: 'red sea kayak', mode: 'context' },
      });
      expect(got.structured).toEqual(want.body.result);
      expect(got.structured.entries.map((e: { uri: string }) => e.uri)).toContain(
        'viking://user/alice/memories/preferences/kayak.md',
      );
      await client.close();
    }
  });

  it('case 7 (OAuth off), §8.4: no key → 401 without WWW-Authenticate, a wrong key → 401, the root key → 403, each in a JSON-RPC error body', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    const cases: [Record<string, string>, number, string][] = [
      [{}, 401, 'Missing API Key when resolving identity.'],
      [{ 'x-api-key': 'wrong' }, 401, 'Invalid API Key'],
      [
        { 'x-api-key': ROOT },
        403,
        'ROOT API keys cannot access tenant-scoped data APIs in api_key mode; use a user or admin key of the account.',
      ],
    ];
    for (const [auth, status, message] of cases) {
      const r = await app.request('POST', '/mcp', { body: init, headers: { ...headers, ...auth } });
      expect([auth, r.status, r.body]).toEqual([
        auth,
        status,
        { jsonrpc: '2.0', id: null, error: { code: -32001, message } },
      ]);
      // Muninn has no OAuth, so no resource-metadata challenge is ever sent (case 7's "OAuth disabled").
      expect(r.headers.get('www-authenticate')).toBeNull();
    }
    await expect(connect(app)).rejects.toThrow(/Missing API Key/);
  });
});

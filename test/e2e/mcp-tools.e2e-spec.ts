// The reference's MCP tool set (docs/fs-and-mcp.md, "MCP tools") through the MCP SDK's own client and
// through raw JSON-RPC (batches, unknown tools, transport refusals), as a user of an api_key account.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseMcpBody, startTestApp, TestApp } from '@app/testing';

const ROOT_KEY = 'mcp-tools-root-key-0123456789';

interface Answer {
  text: string;
  isError: boolean;
}

describe('MCP tools (api_key mode, user alice)', () => {
  let app: TestApp;
  let key: string;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Answer> => {
    const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
    return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
  };
  const rpc = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': key,
        ...headers,
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT_KEY });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'mcpt', admin_user_id: 'alice' },
    });
    key = acct.body.result.user_key;
    client = new Client({ name: 'muninn-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
  }, 60000);

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  // Cases 1-4: the exact tool list and the explicit-typed schemas are checked in mcp.e2e-spec.ts; here, what each
  // tool's schema promises.
  it('cases 1-4: tools/list schemas carry the reference enums and required fields', async () => {
    const { tools } = await client.listTools();
    const by = (n: string) => tools.find((t) => t.name === n)!.inputSchema as any;
    expect(by('search').properties.mode.enum).toEqual(['list', 'context']);
    expect(by('write').properties.mode.enum).toEqual(['replace', 'append', 'create']);
    expect(by('write').required).toEqual(expect.arrayContaining(['uri', 'content']));
    expect(by('edit').required).toEqual(expect.arrayContaining(['uri', 'old_string', 'new_string']));
    expect(by('edit').properties.replace_all.type).toBe('boolean');
    expect(by('read').required).toEqual(['uris']);
    for (const n of ['find', 'search']) {
      expect(by(n).properties).toHaveProperty('context_type');
      expect(by(n).properties).not.toHaveProperty('filter');
    }
    expect(by('find').properties.target_uri.title).toBe('Target Uri');
  });

  it('cases 16-19, 22: write creates, modes refuse what they must, paths resolve through ~', async () => {
    const w = await call('write', { uri: 'viking://resources/t/notes.md', content: '# Notes\n' });
    expect([w.isError, w.text.startsWith('Wrote 8 bytes to viking://resources/t/notes.md (mode=create).')]).toEqual([
      false,
      true,
    ]);
    expect(w.text).toContain('Indexing: semantic=queued, vector=queued.');
    const again = await call('write', { uri: 'viking://resources/t/notes.md', content: 'x', mode: 'create' });
    expect([again.isError, /already exists/.test(again.text)]).toEqual([true, true]);
    const append = await call('write', { uri: 'viking://resources/t/missing.md', content: 'x', mode: 'append' });
    expect([append.isError, /not found/i.test(append.text)]).toEqual([true, true]);
    const csv = await call('write', { uri: 'viking://resources/t/data.csv', content: 'a,b', mode: 'create' });
    expect([csv.isError, /extension/.test(csv.text)]).toEqual([true, true]);
    for (const uri of ['viking://resources/t/.abstract.md', 'viking://resources/t/.relations.json']) {
      const r = await call('write', { uri, content: 'x', mode: 'create' });
      expect([uri, r.isError]).toEqual([uri, true]);
    }
    const session = await call('write', { uri: 'viking://user/alice/sessions/x.md', content: 'x' });
    expect([session.isError, /user root/.test(session.text)]).toEqual([true, true]);
    // Case 19's skills half differs on purpose: a user's skills/ stays writable (docs/fs-and-mcp.md, "Content writes").
    const skill = await call('write', { uri: 'viking://user/alice/skills/demo/SKILL.md', content: '# Demo\n' });
    expect([skill.isError, skill.text.startsWith('Wrote 7 bytes to viking://user/alice/skills/demo/SKILL.md')]).toEqual(
      [false, true],
    );
    const home = await call('write', {
      uri: 'viking://~/memories/preferences/a.md',
      content: 'Prefers tea.',
      wait: true,
    });
    expect(home.text).toContain('viking://user/alice/memories/preferences/a.md');
    expect(home.text).not.toContain('viking://~');
    const listed = await call('list', { uri: 'viking://~/memories/preferences' });
    expect(listed.text).toBe('[file] a.md');
    const read = await call('read', { uris: 'viking://resources/t/notes.md' });
    expect(read.text).toBe('# Notes\n');
  });

  it('cases 8-10, 24: read returns storage errors as text and batches in sections', async () => {
    const missing = await call('read', { uris: 'viking://user/alice/memories/none.md' });
    expect([missing.isError, missing.text]).toEqual([false, 'File not found: viking://user/alice/memories/none.md']);
    const dir = await call('read', { uris: ['viking://resources/t'] });
    expect(dir.text).toBe(
      'Directory URI is not readable as a file: viking://resources/t. List it first, then read a file URI.',
    );
    const two = await call('read', { uris: ['viking://resources/t/notes.md', 'viking://~/memories/preferences/a.md'] });
    expect(two.text).toBe(
      '=== viking://resources/t/notes.md ===\n# Notes\n\n\n=== viking://~/memories/preferences/a.md ===\nPrefers tea.',
    );
    const other = await call('read', { uris: ['viking://user/bob/memories/x.md'] });
    expect(other.text).toBe('Access denied for viking://user/bob/memories/x.md');
    const reserved = await call('read', { uris: ['viking://user/memories/x'] });
    expect([reserved.isError, reserved.text.startsWith('Invalid URI: viking://user/memories/x')]).toEqual([
      false,
      true,
    ]);
    const listReserved = await call('list', { uri: 'viking://user/memories/x' });
    expect([listReserved.isError, listReserved.text.includes('viking://~/memories')]).toEqual([true, true]);
    for (const [name, args] of [
      ['write', { uri: 'viking://user/memories/x.md', content: 'x' }],
      ['find', { query: 'tea', target_uri: 'viking://user/memories' }],
    ] as const) {
      const r = await call(name, args);
      expect([name, r.isError, r.text.includes('Invalid URI'), r.text.includes('viking://~/memories')]).toEqual([
        name,
        true,
        true,
        true,
      ]);
    }
    const json = await call('read', { uris: '["viking://resources/t/notes.md"]' });
    expect(json.text).toBe('# Notes\n');
    const tooMany = await call('read', { uris: Array.from({ length: 51 }, (_, i) => `viking://resources/x${i}.md`) });
    expect([tooMany.isError, tooMany.text]).toEqual([
      true,
      'Error executing tool read: uris: List should have at most 50 items',
    ]);
  });

  it('cases 20-21: edit replaces exact text; memory files keep their metadata trailer', async () => {
    const uri = 'viking://resources/t/edit.md';
    await call('write', { uri, content: 'foo bar baz\n', mode: 'create' });
    expect((await call('edit', { uri, old_string: 'bar', new_string: 'qux' })).text).toMatch(
      /^Edited viking:\/\/resources\/t\/edit\.md \(\d+ bytes written\)\./,
    );
    await call('edit', { uri, old_string: 'foo qux', new_string: 'hello' });
    expect((await call('read', { uris: uri })).text).toBe('hello baz\n');
    await call('write', { uri, content: 'a a a' });
    const dup = await call('edit', { uri, old_string: 'a', new_string: 'b' });
    expect([dup.isError, dup.text.includes('matches 3 locations')]).toEqual([true, true]);
    await call('edit', { uri, old_string: 'a', new_string: 'b', replace_all: true });
    expect((await call('read', { uris: uri })).text).toBe('b b b');
    expect((await call('edit', { uri, old_string: 'zzz', new_string: 'y' })).text).toContain('old_string not found in');
    expect((await call('edit', { uri, old_string: '', new_string: 'y' })).text).toContain(
      'old_string must not be empty',
    );
    expect(
      (await call('edit', { uri: 'viking://resources/t/nope.md', old_string: 'a', new_string: 'y' })).text,
    ).toContain('not found');
    expect((await call('edit', { uri, old_string: 'b', new_string: 'b', replace_all: true })).text).toBe(
      `No changes: ${uri} already matches the requested edit.`,
    );
    const mem = 'viking://user/alice/memories/events/e.md';
    const w = await app.request('POST', '/api/v1/content/write', {
      key,
      body: { uri: mem, content: 'Went hiking.\n<!-- MEMORY_FIELDS {"memory_type":"events"} -->\n', mode: 'create' },
    });
    expect(w.status).toBe(200);
    await call('edit', { uri: mem, old_string: 'hiking', new_string: 'sailing' });
    const raw = await app.request('GET', `/api/v1/content/read?uri=${mem}&raw=true`, { key });
    expect(raw.body.result).toContain('Went sailing.');
    expect(raw.body.result).toContain('MEMORY_FIELDS {"memory_type":"events"}');
  });

  it('cases 25-29: forget, grep, glob and tree texts', async () => {
    await call('write', { uri: 'viking://resources/tr/top.md', content: 'top\n', mode: 'create' });
    await call('write', { uri: 'viking://resources/tr/sub/a.md', content: 'alpha\n', mode: 'create' });
    await call('write', { uri: 'viking://resources/tr/sub/deeper/b.md', content: 'beta\n', mode: 'create' });
    const tree = await call('tree', { uri: 'viking://resources/tr' });
    expect(tree.text).toBe(
      [
        'Tree of viking://resources/tr (depth <= 3, 5 entries):',
        'sub/',
        '  deeper/',
        '    b.md (5 B)',
        '  a.md (6 B)',
        'top.md (4 B)',
      ].join('\n'),
    );
    expect((await call('tree', { uri: 'viking://resources/tr', level_limit: 1 })).text).not.toContain('a.md');
    expect((await call('tree', { uri: 'viking://resources/tr', node_limit: 1 })).text).toContain(
      '(truncated at node_limit=1',
    );
    expect((await call('tree', { uri: 'viking://resources/none' })).text).toBe(
      '(nothing under viking://resources/none)',
    );
    const none = await call('grep', { uri: 'viking://resources', pattern: ['a_xyz', 'b_xyz'] });
    expect(none.text).toBe('No matches found for pattern(s): a_xyz, b_xyz');
    const hits = await call('grep', { uri: 'viking://resources/tr', pattern: ['alpha', 'be.a'] });
    expect(hits.text).toBe(
      'Found 2 match(es) across 2 pattern(s):\n\nviking://resources/tr/sub/a.md\n  L1 [alpha]: alpha\n\nviking://resources/tr/sub/deeper/b.md\n  L1 [be.a]: beta',
    );
    const evil = await call('grep', { uri: 'viking://resources', pattern: '(a+)+$' });
    expect(evil.text).toBe('No matches found for pattern(s): (a+)+$');
    expect((await call('glob', { pattern: '**/zzz_*.xyz' })).text).toBe('No files found matching: **/zzz_*.xyz');
    expect((await call('glob', { pattern: '**/b.md', uri: 'viking://resources/tr' })).text).toBe(
      'Found 1 file(s):\n  viking://resources/tr/sub/deeper/b.md',
    );
    expect((await call('glob', { pattern: '[' })).text).toMatch(/^Error: pattern has an unclosed \[/);
    const dir = await call('forget', { uri: 'viking://resources/tr/sub' });
    expect(dir.isError).toBe(true);
    expect((await call('forget', { uri: 'viking://resources/tr/sub', recursive: true })).text).toBe(
      'Deleted: viking://resources/tr/sub',
    );
    const container = await call('forget', { uri: 'viking://user' });
    expect([container.isError, container.text.includes('Deleting viking://user is not supported')]).toEqual([
      true,
      true,
    ]);
    for (const uri of ['viking://~', 'viking://resources']) {
      const r = await call('forget', { uri, recursive: true });
      expect([uri, r.isError, r.text.includes('namespace root')]).toEqual([uri, true, true]);
    }
    expect((await call('read', { uris: 'viking://resources/t/notes.md' })).text).toBe('# Notes\n');
  });

  it('search and recall refuse a session_id the session routes refuse, and make no session of it', async () => {
    const { tools } = await client.listTools();
    const prop = (n: string) => (tools.find((t) => t.name === n)!.inputSchema as any).properties.session_id;
    for (const name of ['search', 'recall']) expect(new RegExp(prop(name).pattern).test('..')).toBe(false);
    const before = (await app.request('GET', '/api/v1/sessions', { key })).body.result.length;
    for (const session_id of ['a/b', '..']) {
      const search = await call('search', { query: 'anything', mode: 'context', session_id, dedup_turns: 3 });
      expect([search.isError, search.text.includes('session_id')]).toEqual([true, true]);
      const recall = await call('recall', { query: 'anything', session_id });
      expect([recall.isError, recall.text.includes('session_id')]).toEqual([true, true]);
    }
    expect((await app.request('GET', '/api/v1/sessions', { key })).body.result).toHaveLength(before);
    expect((await call('search', { query: 'anything', mode: 'context', session_id: 'mcp-ok.1' })).isError).toBe(false);
  });

  it('cases 11, 15, 31: health, remember and add_resource validation texts', async () => {
    expect((await call('health')).text).toBe('OpenViking is healthy (service initialized, storage: VikingFS)');
    const stored = await call('remember', {
      messages: [
        { role: 'user', content: '' },
        { role: 'assistant', content: 'Noted.' },
      ],
    });
    expect(stored.text).toBe('Stored 2 message(s) and committed for memory extraction.');
    const list = await app.request('GET', '/api/v1/sessions', { key });
    const ids: string[] = list.body.result.map((x: { session_id: string }) => x.session_id);
    const sessionId = ids.find((id) => /^mcp-store-[0-9a-f]{12}$/.test(id))!;
    const session = await app.request('GET', `/api/v1/sessions/${sessionId}`, { key });
    expect([session.body.result.total_message_count, session.body.result.commit_count]).toEqual([1, 1]);
    expect((await call('add_resource', {})).text).toMatch(/^Error.*path or temp_file_id/);
    expect((await call('add_resource', { path: 'upload_abc123.pdf' })).text).toContain('looks like a temp_file_id');
    expect((await call('add_resource', { path: 'x.pdf', add_type: 'doc' })).text).toBe(
      "Error: add_type requires an exact 'to' target.",
    );
    expect((await call('add_resource', { path: 'x.pdf', watch_interval: -1 })).text).toBe(
      'Error: watch_interval must be >= 0',
    );
  });

  it('case 30: add_resource of a local path answers an upload link; the upload is stored and indexed, once', async () => {
    const r = await call('add_resource', { path: '/home/alice/notes/guide.md', tags: ['team=docs'] });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('/api/v1/resources/temp_upload?token=');
    expect(r.text).toContain('automatically');
    expect(r.text).not.toContain('temp_file_id');
    // No MUNINN_PUBLIC_BASE_URL here: the origin is inferred, and the note says how to set it.
    expect(r.text).toContain('OPENVIKING_PUBLIC_BASE_URL');
    expect(r.text).toContain('It is stored at viking://resources/guide.md');
    const url = /(http:\/\/\S+\/api\/v1\/resources\/temp_upload\?token=[A-Za-z0-9_-]+)/.exec(r.text)![1]!;
    expect(url.startsWith(app.url)).toBe(true);
    const upload = (body: string | FormData, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', body, headers });
    const form = (bytes: Uint8Array | string) => {
      const f = new FormData();
      f.append('file', new Blob([bytes]), 'guide.md');
      return f;
    };
    // A refused file does not use the link up.
    const binary = await upload(form(new Uint8Array([0xff, 0xfe, 0x00, 0x41])));
    expect([binary.status, ((await binary.json()) as any).error.details.field]).toEqual([415, 'file']);
    const json = await upload('{"file":"x"}', { 'content-type': 'application/json' });
    expect(json.status).toBe(415);
    const ok = await upload(form('# Guide\nPress the big red button.\n'));
    const okBody = (await ok.json()) as any;
    expect([ok.status, okBody.result.uri, okBody.result.mode]).toEqual([200, 'viking://resources/guide.md', 'create']);
    expect((await call('read', { uris: 'viking://resources/guide.md' })).text).toBe(
      '# Guide\nPress the big red button.\n',
    );
    const attrs = await app.request('GET', '/api/v1/fs/attrs?uri=viking://resources/guide.md', { key });
    expect(attrs.body.result.attrs.tags).toEqual(['team=docs']);
    const again = await upload(form('second'));
    expect([again.status, ((await again.json()) as any).error.code]).toEqual([401, 'UNAUTHENTICATED']);
    const noToken = await fetch(`${app.url}/api/v1/resources/temp_upload`, {
      method: 'POST',
      body: form('x'),
      headers: { 'x-api-key': key },
    });
    expect([noToken.status, ((await noToken.json()) as any).error.details.field]).toEqual([400, 'token']);
    const forged = await fetch(`${app.url}/api/v1/resources/temp_upload?token=${'A'.repeat(32)}`, {
      method: 'POST',
      body: form('x'),
    });
    expect(forged.status).toBe(401);
  });

  it('case 30: an upload whose write stored nothing leaves its link usable', async () => {
    const r = await call('add_resource', { path: '/home/alice/shelf.md' });
    const url = /(http:\/\/\S+\/api\/v1\/resources\/temp_upload\?token=[A-Za-z0-9_-]+)/.exec(r.text)![1]!;
    const upload = (text: string) => {
      const f = new FormData();
      f.append('file', new Blob([text]), 'shelf.md');
      return fetch(url, { method: 'POST', body: f });
    };
    // A directory stands where the file is to go: the write is refused, nothing stored.
    const dir = 'viking://resources/shelf.md';
    expect((await app.request('POST', '/api/v1/fs/mkdir', { key, body: { uri: dir } })).status).toBe(200);
    const refused = await upload('# Shelf\n');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // The link was given back (before, it was used up by the refused write: 401 now).
    expect(
      (await app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(dir)}&recursive=true`, { key })).status,
    ).toBe(200);
    const stored = await upload('# Shelf\nThe blue one.\n');
    expect(stored.status).toBe(200);
    expect((await call('read', { uris: dir })).text).toBe('# Shelf\nThe blue one.\n');
    // Used once it stored something.
    expect((await upload('again')).status).toBe(401);
  });

  it('case 30 (refusals): add_resource checks the target before handing out a link', async () => {
    const pdf = await call('add_resource', { path: '/tmp/x.pdf' });
    expect([pdf.isError, pdf.text]).toEqual([
      false,
      "Error adding resource: create mode does not allow extension '.pdf': viking://resources/x.pdf",
    ]);
    const other = await call('add_resource', { path: 'a.md', to: 'viking://resources/../user/bob/a.md' });
    expect(other.text.startsWith('Error adding resource: ')).toBe(true);
    const remote = await call('add_resource', { path: 'https://example.com/doc.md' });
    expect(remote.text).toMatch(/^Error adding resource: remote sources/);
    const watch = await call('add_resource', { path: '/tmp/a.md', watch_interval: 5 });
    expect(watch.text).toMatch(/^Error adding resource: watch_interval needs a remote source/);
    const temp = await call('add_resource', { temp_file_id: 'upload_abc' });
    expect(temp.text).toMatch(/^Error adding resource: uploads are not kept for a temp_file_id/);
  });

  it("case 32 (differs): without a watch scheduler the watch tools answer the reference's own text for that", async () => {
    // Watches refresh remote sources, which this server does not ingest (docs/fs-and-mcp.md, "add_resource
    // and watches"); the reference answers exactly this when its scheduler is not running.
    expect((await call('list_watches')).text).toBe('Error: Watch scheduler not running');
    expect((await call('cancel_watch', { to_uri: 'viking://resources/x' })).text).toBe(
      'Error: Watch scheduler not running',
    );
  });

  it('case 34: raw JSON-RPC, unknown tool → isError at HTTP 200, a batch answers every call', async () => {
    const unknown = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get('content-type')).toBe('text/event-stream');
    const [body] = parseMcpBody(unknown.headers.get('content-type'), await unknown.text());
    expect(body.result).toEqual({ isError: true, content: [{ type: 'text', text: 'Unknown tool: nope' }] });
    const batch = await rpc([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'health', arguments: {} } },
      {
        jsonrpc: '2.0',
        id: 'b',
        method: 'tools/call',
        params: { name: 'read', arguments: { uris: ['viking://resources/t/notes.md'] } },
      },
    ]);
    expect(batch.status).toBe(200);
    const answers = parseMcpBody(batch.headers.get('content-type'), await batch.text());
    expect(answers).toHaveLength(2);
    const byId = Object.fromEntries(answers.map((a: any) => [a.id, a.result.content[0].text]));
    expect(byId).toEqual({ a: 'OpenViking is healthy (service initialized, storage: VikingFS)', b: '# Notes\n' });
  });

  it('cases 5, 33: a bad actor header is 400 before JSON-RPC; DELETE is 405; Accept without event-stream is 406', async () => {
    const bad = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'x-openviking-actor-peer': 'bad/peer' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('path separators');
    expect((await app.request('DELETE', '/mcp', { key })).status).toBe(405);
    const noSse = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' });
    expect(noSse.status).toBe(406);
  });
});

describe('MCP tools: arguments sent as strings and edits that grow are bounded as the routes are', () => {
  let app: TestApp;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Answer> => {
    const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
    return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
  };

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT_KEY, env: { MUNINN_BODY_LIMIT_BYTES: '65536' } });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'mcpb', admin_user_id: 'alice' },
    });
    client = new Client({ name: 'muninn-e2e', version: '1.0.0' });
    const headers = { 'x-api-key': acct.body.result.user_key };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } }));
  }, 60000);

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('an edit may not grow a file past MUNINN_BODY_LIMIT_BYTES; one that does not grow it still applies', async () => {
    const uri = 'viking://resources/grow.md';
    expect((await call('write', { uri, content: 'a'.repeat(20000) })).isError).toBe(false);
    // 20,000 characters become 80,000: a 40-byte call would write more than a write's body may carry.
    const over = await call('edit', { uri, old_string: 'a', new_string: 'xxxx', replace_all: true });
    expect([over.isError, over.text]).toEqual([true, expect.stringContaining('MUNINN_BODY_LIMIT_BYTES')]);
    expect((await call('read', { uris: uri })).text).toBe('a'.repeat(20000));
    // Counted in bytes: one character for one (three bytes for one) grows the file as surely.
    const wide = 'viking://resources/wide.md';
    expect((await call('write', { uri: wide, content: 'a'.repeat(25000) })).isError).toBe(false);
    const tripled = await call('edit', { uri: wide, old_string: 'a', new_string: 'ࠀ', replace_all: true });
    expect([tripled.isError, tripled.text]).toEqual([true, expect.stringContaining('MUNINN_BODY_LIMIT_BYTES')]);
    const same = await call('edit', { uri, old_string: 'a', new_string: 'b', replace_all: true });
    expect(same.isError).toBe(false);
    expect((await call('read', { uris: uri })).text).toBe('b'.repeat(20000));
  });

  it('a timeout sent as a string is bounded as the number is, and a timeout under 0.1 s is refused', async () => {
    const uri = 'viking://resources/timed.md';
    for (const timeout of ['601', 601, 0.01, '-1']) {
      const r = await call('write', { uri, content: 'x', wait: true, timeout }).catch((err: Error) => ({
        isError: true,
        text: err.message,
      }));
      expect([timeout, r.isError, r.text]).toEqual([timeout, true, expect.stringContaining('timeout')]);
    }
    expect((await call('read', { uris: uri })).text).toContain('not found');
  });

  it('messages sent as a JSON string meet the checks the gate makes: a NUL is named, not an internal error', async () => {
    const messages = JSON.stringify([{ role: 'user', content: 'a\u0000b' }]);
    const r = await call('remember', { messages });
    expect([r.isError, r.text]).toEqual([true, expect.stringContaining('messages.0.content')]);
    expect(r.text).not.toContain('Internal');
  });
});

// Replays, request by request, what one turn of the reference's Claude Code memory plugin sends
// (its stdio MCP proxy plus the profile hook), with the proxy's headers: Bearer key, account/user
// headers, actor peer, MCP-Protocol-Version 2025-06-18, `Accept: application/json, text/event-stream`.
// Bodies are parsed the way the proxy does: SSE when the content type says so, else JSON.
import { parseMcpBody, startTestApp, TestApp } from '@app/testing';

const ROOT_KEY = 'plugin-replay-root-key-0123456789';

describe('reference plugin turn replay', () => {
  let app: TestApp;
  let key: string;
  let protocolVersion = '2025-06-18';

  const headers = () => ({
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': protocolVersion,
    Authorization: `Bearer ${key}`,
    'X-OpenViking-Account': 'replay',
    'X-OpenViking-User': 'alice',
    'X-OpenViking-Actor-Peer': 'claude-code',
  });
  const mcp = async (message: Record<string, unknown>) => {
    const res = await fetch(`${app.url}/mcp`, { method: 'POST', headers: headers(), body: JSON.stringify(message) });
    const text = await res.text();
    expect(res.headers.get('mcp-session-id')).toBeNull(); // stateless: the proxy never needs DELETE
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      messages: parseMcpBody(res.headers.get('content-type'), text),
    };
  };
  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        'X-OpenViking-Actor-Peer': 'claude-code',
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT_KEY });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'replay', admin_user_id: 'alice' },
    });
    key = acct.body.result.user_key;
    const w = await app.request('POST', '/api/v1/content/write', {
      key,
      body: {
        uri: 'viking://user/alice/memories/preferences/editor.md',
        content: 'Alice edits code in Helix with the kakoune keymap.',
        mode: 'create',
        wait: true,
      },
    });
    expect(w.status).toBe(200);
  }, 60000);

  afterAll(() => app.close());

  it("profile hook: user container, then the agent listing of the caller's memories, then status", async () => {
    const users = await rest('GET', '/api/v1/fs/ls?uri=viking://user&output=original');
    expect(users.status).toBe(200);
    const me = users.body.result.find((e: any) => e.isDir)?.name;
    expect(me).toBe('alice');
    const profile = await rest(
      'GET',
      `/api/v1/fs/ls?uri=viking://user/${me}/memories&output=agent&recursive=true&abs_limit=512&node_limit=512`,
    );
    expect(profile.body.result.map((e: any) => e.rel_path)).toEqual(
      expect.arrayContaining(['preferences', 'preferences/editor.md']),
    );
    for (const e of profile.body.result)
      expect(Object.keys(e).sort()).toEqual(['abstract', 'isDir', 'modTime', 'rel_path', 'size', 'uri']);
    expect((await rest('GET', '/api/v1/system/status')).body.result.user).toBe('alice');
  });

  it('proxy: initialize, initialized, tools/list, search (context), read, then a 16-way burst', async () => {
    const init = await mcp({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'claude-code', version: '1' } },
    });
    // The reference's transport answers a request as one SSE `message` event (case 33's other half).
    expect([init.status, init.contentType]).toEqual([200, 'text/event-stream']);
    protocolVersion = init.messages[0].result.protocolVersion;
    expect(protocolVersion).toBe('2025-06-18');
    const initialized = await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([initialized.status, initialized.messages]).toEqual([202, []]);
    const list = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const names = list.messages[0].result.tools.map((t: any) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'search',
        'find',
        'read',
        'list',
        'grep',
        'glob',
        'remember',
        'add_resource',
        'forget',
        'health',
      ]),
    );
    const search = await mcp({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'which editor does Alice use', mode: 'context' } },
    });
    const text: string = search.messages[0].result.content[0].text;
    expect(text).toContain('viking://user/alice/memories/preferences/editor.md');
    const read = await mcp({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'read', arguments: { uris: ['viking://user/alice/memories/preferences/editor.md'] } },
    });
    expect(read.messages[0].result).toMatchObject({
      content: [{ type: 'text', text: 'Alice edits code in Helix with the kakoune keymap.' }],
    });
    const burst = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        mcp({
          jsonrpc: '2.0',
          id: 100 + i,
          method: 'tools/call',
          params: { name: 'glob', arguments: { pattern: '**/editor.md', uri: 'viking://~/memories' } },
        }),
      ),
    );
    for (const [i, r] of burst.entries()) {
      expect([r.status, r.messages[0].id, r.messages[0].result.content[0].text]).toEqual([
        200,
        100 + i,
        'Found 1 file(s):\n  viking://user/alice/memories/preferences/editor.md',
      ]);
    }
  });
});

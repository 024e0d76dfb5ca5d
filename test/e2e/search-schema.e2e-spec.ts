// One schema per search body (issue 16, item 1): /find, /search in both modes and the MCP tools accept and refuse
// the same values with the same message, share one default per field, and decide context-or-list in one place
// (docs/contract.md#context-request).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, TestApp } from '@app/testing';

const FIND = '/api/v1/search/find';
const SEARCH = '/api/v1/search/search';
const RECALL = '/api/v1/search/recall';

describe('one schema per search body', () => {
  let app: TestApp;
  let client: Client;
  const post = (path: string, body: unknown) => app.request('POST', path, { body });
  const tool = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as {
      content: { text: string }[];
      isError?: boolean;
      structuredContent?: Record<string, any>;
    };
    return {
      text: r.content.map((c) => c.text).join(''),
      isError: r.isError === true,
      structured: r.structuredContent,
    };
  };

  beforeAll(async () => {
    app = await startTestApp();
    await post('/api/v1/content/write', {
      uri: 'viking://resources/schema/notes.md',
      content: '# Kestrel notes\nThe kestrel hovers over the meadow.',
      mode: 'create',
      wait: true,
    });
    client = new Client({ name: 'muninn-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)));
  }, 60000);

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('limit: 0 is refused alike on /find, /search list mode, /search context mode and the MCP tools', async () => {
    const message = 'Invalid request parameters: body.limit: Input should be greater than or equal to 1';
    for (const [path, body] of [
      [FIND, { query: 'kestrel', limit: 0 }],
      [SEARCH, { query: 'kestrel', limit: 0 }],
      [SEARCH, { query: 'kestrel', limit: 0, mode: 'context' }],
    ] as const) {
      const r = await post(path, body);
      expect([path, body, r.status, r.body.error?.message]).toEqual([path, body, 400, message]);
      expect(r.body.error.details.validation_errors[0]).toMatchObject({
        loc: ['body', 'limit'],
        type: 'greater_than_equal',
      });
    }
    for (const [name, args] of [
      ['find', { query: 'kestrel', limit: 0 }],
      ['search', { query: 'kestrel', limit: 0 }],
      ['search', { query: 'kestrel', limit: 0, mode: 'context' }],
    ] as const) {
      const r = await tool(name, args);
      expect([name, args, r.isError, r.text]).toEqual([name, args, true, `Error executing tool ${name}: ${message}`]);
    }
    const over = await post(FIND, { query: 'kestrel', node_limit: 1001 });
    expect(over.body.error.message).toBe(
      'Invalid request parameters: body.node_limit: Input should be less than or equal to 1000',
    );
  });

  it('include_provenance: "t" is the same lax boolean in list and context mode; "maybe" is refused in both', async () => {
    for (const [path, extra] of [
      [FIND, {}],
      [SEARCH, {}],
      [SEARCH, { mode: 'context' }],
    ] as const) {
      const ok = await post(path, { query: 'kestrel', include_provenance: 't', ...extra });
      expect([path, extra, ok.status]).toEqual([path, extra, 200]);
      const bad = await post(path, { query: 'kestrel', include_provenance: 'maybe', ...extra });
      expect([path, extra, bad.status, bad.body.error.message]).toEqual([
        path,
        extra,
        400,
        'Invalid request parameters: body.include_provenance: Input should be a valid boolean, unable to interpret input',
      ]);
    }
    const listed = await post(FIND, { query: 'kestrel', include_provenance: 'y' });
    expect(listed.body.result.provenance.matched_contexts).toContain('viking://resources/schema/notes.md');
    // The same parser reads query strings: `t`/`y` are booleans there too.
    const ls = await app.request(
      'GET',
      `/api/v1/fs/ls?uri=${encodeURIComponent('viking://resources/schema')}&simple=t`,
    );
    expect([ls.status, ls.body.result]).toEqual([200, ['viking://resources/schema/notes.md']]);
  });

  it('max_tokens defaults to one 1600 on /search, /recall, the MCP search and recall tools and their schemas', async () => {
    const search = await post(SEARCH, { query: 'kestrel', mode: 'context' });
    const recall = await post(RECALL, { query: 'kestrel' });
    const viaSearch = await tool('search', { query: 'kestrel', mode: 'context' });
    const viaRecall = await tool('recall', { query: 'kestrel' });
    expect([
      search.body.result.stats.max_tokens,
      recall.body.result.stats.max_tokens,
      viaSearch.structured!.stats.max_tokens,
      viaRecall.structured!.stats.max_tokens,
    ]).toEqual([1600, 1600, 1600, 1600]);
    const { tools } = await client.listTools();
    const prop = (t: string, p: string) => (tools.find((x) => x.name === t)!.inputSchema.properties as any)[p];
    expect(prop('search', 'max_tokens')).toMatchObject({ type: 'integer', default: 1600, minimum: 64, maximum: 32000 });
    expect(prop('recall', 'max_tokens')).toMatchObject({ default: 1600, minimum: 64, maximum: 32000 });
    const doc = (await app.request('GET', '/openapi.json')).body;
    const schema = doc.components.schemas.ContextSearchRequestDto.properties.max_tokens;
    expect(schema).toMatchObject({ default: 1600, minimum: 64, maximum: 32000 });
  });

  it('{mode:"foo", max_tokens} is decided once: the route and the MCP search tool both refuse `mode` by name', async () => {
    const r = await post(SEARCH, { query: 'kestrel', mode: 'foo', max_tokens: 800 });
    expect([r.status, r.body.error.message]).toEqual([
      400,
      "Invalid request parameters: body.mode: Input should be 'list' or 'context'",
    ]);
    const alone = await post(SEARCH, { query: 'kestrel', mode: 'foo' });
    expect(alone.body.error.message).toBe(r.body.error.message);
    // The tool checks its enum before building the body; it names the same field.
    const viaTool = await tool('search', { query: 'kestrel', mode: 'foo', max_tokens: 800 });
    expect([viaTool.isError, viaTool.text]).toEqual([
      true,
      "Error executing tool search: mode: Input should be 'list' or 'context'",
    ]);
    // A context-only field in explicit list mode is the contract's cross-field 400 on the route and the tool.
    const crossField =
      "Invalid request parameters: body: Value error, max_tokens require mode='context'; set mode='context' or drop these fields";
    const listed = await post(SEARCH, { query: 'kestrel', mode: 'list', max_tokens: 800 });
    expect(listed.body.error.message).toBe(crossField);
    const listedTool = await tool('search', { query: 'kestrel', mode: 'list', max_tokens: 800 });
    expect(listedTool.text).toBe(`Error executing tool search: ${crossField}`);
  });

  it('image_url is refused by name in every mode: no configured embedder reads images', async () => {
    const message =
      'Invalid request parameters: body.image_url: Not supported: no configured embedder reads images; send a text query';
    for (const [path, body] of [
      [FIND, { query: 'kestrel', image_url: 'data:image/png;base64,iVBORw0KGgo=' }],
      [SEARCH, { image_url: 'https://example.com/a.png' }],
      [SEARCH, { query: 'kestrel', mode: 'context', image_url: 'data:image/png;base64,iVBORw0KGgo=' }],
    ] as const) {
      const r = await post(path, body);
      expect([path, r.status, r.body.error.message]).toEqual([path, 400, message]);
    }
    const nulled = await post(FIND, { query: 'kestrel', image_url: null });
    expect(nulled.status).toBe(200);
  });
});

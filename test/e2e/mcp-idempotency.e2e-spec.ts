// docs/fs-and-mcp.md, "Retrying a tool call": a writing MCP tool called with an idempotency key in its `_meta` is
// applied at most once per caller and key, through the MCP SDK's own client, on both stores.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callMcpTool, startTestApp, storeModes, TestApp } from '@app/testing';

const ROOT_KEY = 'mcp-idempotency-root-key-0123456789';
const KEY = 'muninn/idempotency_key';
const REPLAYED = 'muninn/idempotent_replayed';

interface Answer {
  text: string;
  isError: boolean;
  replayed: boolean;
}

describe.each(storeModes())('MCP tool calls with an idempotency key (store: %s)', (store) => {
  let app: TestApp;
  let key: string;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as {
      content: { text: string }[];
      isError?: boolean;
      _meta?: Record<string, unknown>;
    };
    const answer: Answer = {
      text: r.content.map((c) => c.text).join(''),
      isError: r.isError === true,
      replayed: r._meta?.[REPLAYED] === true,
    };
    return answer;
  };
  const rest = (method: string, path: string, body?: unknown) => app.request(method, path, { key, body });
  const read = async (uri: string) =>
    (await rest('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`)).body.result as string;
  const rememberedSessions = async () =>
    ((await rest('GET', '/api/v1/sessions')).body.result as { session_id: string }[]).filter((s) =>
      s.session_id.startsWith('mcp-store-'),
    ).length;

  beforeAll(async () => {
    // One message per batch, so a remember can write a first batch and be refused at its second.
    app = await startTestApp({ store, rootApiKey: ROOT_KEY, env: { MUNINN_SESSION_BATCH_MAX: '1' } });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'mcpi', admin_user_id: 'alice' },
    });
    key = acct.body.result.user_key;
    client = new Client({ name: 'muninn-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('applies a retried remember and a retried append once, answering the retry with the first result', async () => {
    const messages = [{ role: 'user', content: 'I moved to Lisbon in May.' }];
    const first = await call('remember', { messages }, { [KEY]: 'remember-1' });
    expect(first).toMatchObject({ isError: false, replayed: false });
    const retry = await call('remember', { messages }, { [KEY]: 'remember-1' });
    expect(retry).toEqual({ ...first, replayed: true });
    // Without a key the same call is a second session: what the key saves an agent that retried.
    expect(await rememberedSessions()).toBe(1);

    const uri = 'viking://resources/journal.md';
    await call('write', { uri, content: 'day 1\n' });
    const append = { uri, content: 'day 2\n', mode: 'append' };
    const appended = await call('write', append, { [KEY]: 'append-1' });
    expect(appended.isError).toBe(false);
    expect(await call('write', append, { [KEY]: 'append-1' })).toEqual({ ...appended, replayed: true });
    expect(await read(uri)).toBe('day 1\nday 2\n');
    // Another key is another call.
    await call('write', append, { [KEY]: 'append-2' });
    expect(await read(uri)).toBe('day 1\nday 2\nday 2\n');
  });

  it('takes a retry whose arguments come in another order for the same call', async () => {
    // An agent retrying a tool call writes its arguments again, in whatever order it likes (the fingerprint
    // sorts them; the tool's schema already reads top-level arguments in its own order).
    const uri = 'viking://resources/ordered.md';
    await call('write', { uri, content: 'a\n' });
    const first = await call('write', { uri, content: 'b\n', mode: 'append' }, { [KEY]: 'order-1' });
    const again = await call('write', { mode: 'append', content: 'b\n', uri }, { [KEY]: 'order-1' });
    expect(again).toEqual({ ...first, replayed: true });
    expect(await read(uri)).toBe('a\nb\n');
  });

  it('refuses the key with other arguments, or first sent to a REST route, and applies nothing', async () => {
    const uri = 'viking://resources/reused.md';
    await call('write', { uri, content: 'a\n' }, { [KEY]: 'reused-1' });
    const other = await call('write', { uri: 'viking://resources/other.md', content: 'b\n' }, { [KEY]: 'reused-1' });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(/different request/i);
    expect((await rest('GET', '/api/v1/fs/stat?uri=viking://resources/other.md')).status).toBe(404);

    const viaRest = await app.request('POST', '/api/v1/content/write', {
      key,
      body: { uri: 'viking://resources/rest.md', content: 'r', mode: 'create' },
      headers: { 'idempotency-key': 'shared-1' },
    });
    expect(viaRest.status).toBe(200);
    const viaMcp = await call('write', { uri: 'viking://resources/rest.md', content: 'r' }, { [KEY]: 'shared-1' });
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.text).toMatch(/different request/i);
  });

  it('frees the key of a call that changed nothing, so the retry runs afresh', async () => {
    const uri = 'viking://resources/taken.md';
    await call('write', { uri, content: 'first' });
    const args = { uri, content: 'second', mode: 'create' };
    const refused = await call('write', args, { [KEY]: 'create-1' });
    expect([refused.isError, /already exists/.test(refused.text)]).toEqual([true, true]);
    expect((await rest('DELETE', `/api/v1/fs?uri=${encodeURIComponent(uri)}`)).status).toBe(200);
    const retried = await call('write', args, { [KEY]: 'create-1' });
    expect(retried).toMatchObject({ isError: false, replayed: false });
    expect(await read(uri)).toBe('second');
  });

  /**
   * A keyed `remember` of `messages` in a new account whose storage quota (2 KiB) refuses them: stores nothing;
   * retried with the key once the quota is raised, it runs afresh (not a replay of the refusal) and stores them.
   */
  const refusedThenStored = async (account: string, messages: { role: string; content: string }[], idem: string) => {
    const made = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: account, admin_user_id: 'quinn' },
    });
    const tight = made.body.result.user_key as string;
    const limits = (max: number) =>
      app.request('PUT', `/api/v1/admin/accounts/${account}/limits`, {
        key: ROOT_KEY,
        body: { max_content_bytes: max },
      });
    expect((await limits(2048)).status).toBe(200);
    const remember = () => callMcpTool(app.url, tight, 'remember', { messages }, { [KEY]: idem });
    const refused = (await remember()).result;
    expect(refused.isError).toBe(true);
    const sessions = async () =>
      (await app.request('GET', '/api/v1/sessions', { key: tight })).body.result as { session_id: string }[];
    expect(await sessions()).toEqual([]);
    expect((await limits(1_000_000)).status).toBe(200);
    const stored = (await remember()).result;
    expect([stored.isError ?? false, stored._meta?.[REPLAYED] ?? false]).toEqual([false, false]);
    expect((await sessions()).length).toBe(1);
    return { refused, stored };
  };
  const NOTES = `My travel notes: ${'Lisbon in May, Porto in June. '.repeat(120)}`;

  it('frees the key of a remember refused by the storage quota: nothing was stored, so its retry runs', async () => {
    // Before, the first message's session was made (the key marked applied) and then removed, and the retry was
    // answered with the refusal for the key's whole day.
    const messages = [
      { role: 'user', content: NOTES },
      { role: 'assistant', content: 'Noted.' },
    ];
    const { refused, stored } = await refusedThenStored('mcpq', messages, 'quota-1');
    expect(refused.content[0].text).toMatch(/quota|storage|content bytes/i);
    expect(stored.content[0].text).toBe('Stored 2 message(s) and committed for memory extraction.');
  });

  it('frees the key of a remember refused after a first batch was written, once it removed what it wrote', async () => {
    // The first message fits; the second passes the quota: its batch is refused after the first was stored. Before,
    // the key stayed applied (the first batch) and the retry got the refusal for the key's day.
    const messages = [
      { role: 'user', content: 'Hello.' },
      { role: 'user', content: NOTES },
    ];
    await refusedThenStored('mcpr', messages, 'partial-1');
  });

  it('refuses a malformed key naming where it was carried, and lets reading tools ignore it', async () => {
    const args = { uri: 'viking://resources/bad.md', content: 'x' };
    const spaced = await call('write', args, { [KEY]: 'has space' });
    expect(spaced.isError).toBe(true);
    expect(spaced.text).toContain(`_meta.${KEY} may hold printable ASCII characters only`);
    const numeric = await call('write', args, { [KEY]: 42 });
    expect(numeric.text).toContain(`_meta.${KEY} must be a string`);
    const long = await call('write', args, { [KEY]: 'k'.repeat(app.config.store.idempotency.keyMaxChars + 1) });
    expect(long.text).toMatch(/at most \d+ are allowed \(MUNINN_IDEMPOTENCY_KEY_MAX_CHARS\)/);
    expect((await rest('GET', '/api/v1/fs/stat?uri=viking://resources/bad.md')).status).toBe(404);
    // A read is safe to retry: the key is not taken, and each call answers afresh.
    for (let i = 0; i < 2; i++) {
      const listed = await call('list', { uri: 'viking://resources' }, { [KEY]: 'read-1' });
      expect([listed.isError, listed.replayed]).toEqual([false, false]);
    }
  });
});

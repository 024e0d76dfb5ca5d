import { Db, readUsage, STORE_DB, USAGE_COMPACT_ROWS } from '@app/store';
import { callMcpTool, eventually, startTestApp, storeModes, TestApp } from '@app/testing';
import { countedUsage } from './usage-support';

// Storage quota per account (docs/limits-and-security.md, "Storage quota"): the store keeps each
// account's usage; a write that takes an account past MUNINN_ACCOUNT_MAX_NODES or
// MUNINN_ACCOUNT_MAX_CONTENT_BYTES is refused whole (413, naming the limit), other accounts write on,
// and writes that free space always pass.
const MAX_NODES = 12;
const MAX_BYTES = 4096;
const MAX_SESSIONS = 3;

describe.each(storeModes())('account storage quota (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  const as = (account: string) => ({ 'X-OpenViking-Account': account, 'X-OpenViking-User': 'u' });
  const write = (account: string, uri: string, content: string, mode = 'create') =>
    app.request('POST', '/api/v1/content/write', { headers: as(account), body: { uri, content, mode } });
  const read = (account: string, uri: string) =>
    app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { headers: as(account) });
  const post = (account: string, path: string, body: unknown) =>
    app.request('POST', path, { headers: as(account), body });
  const counted = (account: string) => countedUsage(db, account);
  const liveMessages = async (account: string) => {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE account_id = $1`, [
      account,
    ]);
    return rows[0].n;
  };
  const usage = async (account: string) => {
    const { nodes, contentBytes } = await readUsage(db, account);
    return { nodes, contentBytes };
  };

  beforeAll(async () => {
    app = await startTestApp({
      store,
      env: {
        MUNINN_ACCOUNT_MAX_NODES: String(MAX_NODES),
        MUNINN_ACCOUNT_MAX_CONTENT_BYTES: String(MAX_BYTES),
        MUNINN_ACCOUNT_MAX_SESSIONS: String(MAX_SESSIONS),
      },
    });
    db = app.nest.get<Db>(STORE_DB);
  }, 120_000);
  afterAll(() => app?.close());

  it('refuses the write that passes the node quota, whole; another account writes on; freeing a node lets one in', async () => {
    let refused: Awaited<ReturnType<typeof write>> | null = null;
    let last = -1;
    for (let i = 0; i < MAX_NODES + 2 && !refused; i++) {
      const r = await write('quota-a', `viking://resources/q/f${i}.md`, 'x');
      if (r.status === 200) last = i;
      else refused = r;
    }
    expect(refused?.status).toBe(413);
    expect(refused?.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(refused?.body.error.message).toContain('MUNINN_ACCOUNT_MAX_NODES');
    expect(refused?.body.error.details).toMatchObject({ limit: 'account_nodes', max: MAX_NODES, requested: 1 });
    expect((await read('quota-a', `viking://resources/q/f${last + 1}.md`)).status).toBe(404);
    const full = await counted('quota-a');
    expect(full.nodes).toBe(MAX_NODES);
    expect(await usage('quota-a')).toEqual(full);
    const status = await app.request('GET', '/api/v1/system/status', { headers: as('quota-a') });
    expect(status.body.result.storage).toEqual({
      nodes: MAX_NODES,
      content_bytes: full.contentBytes,
      max_nodes: MAX_NODES,
      max_content_bytes: MAX_BYTES,
      sessions: 0,
      max_sessions: MAX_SESSIONS,
    });

    // Isolation: the other account is not limited by this one's usage.
    expect((await write('quota-b', 'viking://resources/q/f0.md', 'x')).status).toBe(200);
    // A directory is a node too.
    const mkdir = await post('quota-a', '/api/v1/fs/mkdir', { uri: 'viking://resources/newdir' });
    expect(mkdir.status).toBe(413);
    expect(mkdir.body.error.details.limit).toBe('account_nodes');
    // A move adds nothing on balance and passes at the limit.
    const mv = await post('quota-a', '/api/v1/fs/mv', {
      from_uri: 'viking://resources/q/f0.md',
      to_uri: 'viking://resources/q/moved.md',
    });
    expect(mv.status).toBe(200);
    expect(await usage('quota-a')).toEqual(await counted('quota-a'));

    // One node freed: a batch of two is refused whole, one write passes.
    const del = await app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent('viking://resources/q/f1.md')}`, {
      headers: as('quota-a'),
    });
    expect(del.status).toBe(200);
    const batch = await post('quota-a', '/api/v1/content/batch-write', {
      root_uri: 'viking://resources/q',
      operations: [
        { uri: 'viking://resources/q/b1.md', content: 'x', mode: 'create' },
        { uri: 'viking://resources/q/b2.md', content: 'x', mode: 'create' },
      ],
    });
    expect(batch.status).toBe(413);
    expect((await read('quota-a', 'viking://resources/q/b1.md')).status).toBe(404);
    expect((await write('quota-a', 'viking://resources/q/b1.md', 'x')).status).toBe(200);
    expect(await usage('quota-a')).toEqual(await counted('quota-a'));
  });

  it('counts content bytes: a growing write past the quota is refused, a shrinking one passes', async () => {
    const big = 'a'.repeat(3000);
    expect((await write('quota-c', 'viking://resources/big.md', big)).status).toBe(200);
    const over = await write('quota-c', 'viking://resources/more.md', 'b'.repeat(2000));
    expect(over.status).toBe(413);
    expect(over.body.error.details).toMatchObject({ limit: 'account_content_bytes', max: MAX_BYTES, requested: 2000 });
    expect(over.body.error.message).toContain('MUNINN_ACCOUNT_MAX_CONTENT_BYTES');
    // Multi-byte text counts in UTF-8 bytes, as stored: 1,500 characters of 'é' are 3,000 bytes.
    const wide = await write('quota-c', 'viking://resources/wide.md', 'é'.repeat(1500));
    expect(wide.status).toBe(413);
    expect((await write('quota-c', 'viking://resources/big.md', 'small', 'replace')).status).toBe(200);
    expect((await write('quota-c', 'viking://resources/more.md', 'b'.repeat(2000))).status).toBe(200);
    expect(await usage('quota-c')).toEqual(await counted('quota-c'));
    expect((await counted('quota-c')).contentBytes).toBe(5 + 2000);
  });

  it('stays exact through many updates, index jobs and a fold of its delta rows', async () => {
    for (let i = 0; i < USAGE_COMPACT_ROWS + 6; i++) {
      const r = await write('quota-d', 'viking://resources/grow.md', 'g'.repeat(i + 1), i ? 'replace' : 'create');
      expect(r.status).toBe(200);
    }
    // Index jobs update the same rows (vectors, summaries) without touching content.
    await eventually(async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM nodes WHERE account_id = 'quota-d' AND indexed_at IS NULL`,
      );
      return rows[0].n === 0 ? true : null;
    });
    expect(await usage('quota-d')).toEqual(await counted('quota-d'));
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM account_usage WHERE account_id = 'quota-d'`,
    );
    expect(rows[0].n).toBeLessThanOrEqual(USAGE_COMPACT_ROWS + 1);
  });

  it('an MCP write past the quota is a tool error naming it, never a protocol error', async () => {
    // Dev mode without account headers: the `default` account, which MCP calls reach too.
    for (let i = 0; i < MAX_NODES; i++) await write('default', `viking://resources/m/f${i}.md`, 'x');
    const r = await callMcpTool(app.url, 'unused-in-dev-mode', 'write', {
      uri: 'viking://resources/m/over.md',
      content: 'one too many',
    });
    expect(r.status).toBe(200);
    expect(r.result.isError).toBe(true);
    expect(r.result.content[0].text).toContain('account storage quota exceeded');
    expect((await read('default', 'viking://resources/m/over.md')).status).toBe(404);
  });

  it('a commit whose memories would pass the quota fails its task with the reason', async () => {
    for (let i = 0; i < MAX_NODES; i++) await write('quota-e', `viking://resources/fill/f${i}.md`, 'x');
    expect((await counted('quota-e')).nodes).toBe(MAX_NODES);
    const created = await post('quota-e', '/api/v1/sessions', { session_id: 'full' });
    expect(created.status).toBe(200);
    const added = await post('quota-e', '/api/v1/sessions/full/messages', {
      role: 'user',
      content: 'I prefer dark themes and vim keybindings. Maria owns the database migration.',
    });
    expect(added.status).toBe(200);
    const commit = await post('quota-e', '/api/v1/sessions/full/commit', {});
    expect(commit.status).toBe(200);
    const task = await eventually(async () => {
      const r = await app.request('GET', `/api/v1/tasks/${commit.body.result.task_id}`, { headers: as('quota-e') });
      return ['completed', 'failed'].includes(r.body.result?.status) ? r.body.result : null;
    });
    expect(task.status).toBe('failed');
    expect(task.error).toContain('account storage quota exceeded');
    const memories = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM nodes WHERE account_id = 'quota-e' AND uri LIKE 'viking://user/u/memories/%' AND kind = 'file'`,
    );
    expect(memories.rows[0].n).toBe(0);
  });

  it('counts live session messages as content: an append past the quota is 413 whole, deleting the session frees it', async () => {
    // A message is stored as its text and its parts (the text again) and client fields: ~1,650 bytes here.
    const msg = (content: string) => ({ role: 'user', content });
    expect((await post('quota-m', '/api/v1/sessions/chat/messages', msg('m'.repeat(800)))).status).toBe(200);
    expect((await post('quota-m', '/api/v1/sessions/chat/messages', msg('n'.repeat(800)))).status).toBe(200);
    const status = await app.request('GET', '/api/v1/system/status', { headers: as('quota-m') });
    expect(status.body.result.storage.content_bytes).toBe((await counted('quota-m')).contentBytes);
    expect(status.body.result.storage.content_bytes).toBeGreaterThan(2 * 800);
    const over = await post('quota-m', '/api/v1/sessions/chat/messages', msg('o'.repeat(800)));
    expect(over.status).toBe(413);
    expect(over.body.error.details).toMatchObject({ limit: 'account_content_bytes', max: MAX_BYTES });
    expect(over.body.error.message).toContain('MUNINN_ACCOUNT_MAX_CONTENT_BYTES');
    // A batch is refused whole: neither message stays, in this session or a new one.
    const batch = await post('quota-m', '/api/v1/sessions/other/messages/batch', {
      messages: [msg('a'.repeat(200)), msg('b'.repeat(600))],
    });
    expect(batch.status).toBe(413);
    expect(await liveMessages('quota-m')).toBe(2);
    // Another account is not limited by this one.
    expect((await post('quota-n', '/api/v1/sessions/chat/messages', msg('o'.repeat(800)))).status).toBe(200);
    expect(await usage('quota-m')).toEqual(await counted('quota-m'));
    // Deleting the session takes its messages' bytes with it.
    expect((await app.request('DELETE', '/api/v1/sessions/chat', { headers: as('quota-m') })).status).toBe(200);
    expect(await liveMessages('quota-m')).toBe(0);
    expect(await usage('quota-m')).toEqual(await counted('quota-m'));
    expect((await post('quota-m', '/api/v1/sessions/chat/messages', msg('o'.repeat(800)))).status).toBe(200);
  });

  it('counts usage records (POST …/used) as content: a skill call past the quota is 413, deleting the session frees them', async () => {
    expect((await post('quota-r', '/api/v1/sessions', { session_id: 'r' })).status).toBe(200);
    const skill = (n: number) => ({ skill: { uri: 'viking://agent/skills/s', input: 'i'.repeat(n), output: 'ok' } });
    expect((await post('quota-r', '/api/v1/sessions/r/used', skill(3000))).status).toBe(200);
    const over = await post('quota-r', '/api/v1/sessions/r/used', skill(2000));
    expect(over.status).toBe(413);
    expect(over.body.error.details).toMatchObject({ limit: 'account_content_bytes', max: MAX_BYTES });
    expect(await usage('quota-r')).toEqual(await counted('quota-r'));
    // Deleting the session frees them (a commit consuming them: sessions-used e2e).
    expect((await app.request('DELETE', '/api/v1/sessions/r', { headers: as('quota-r') })).status).toBe(200);
    expect(await usage('quota-r')).toEqual({ nodes: 0, contentBytes: 0 });
    expect((await post('quota-r', '/api/v1/sessions', { session_id: 'r2' })).status).toBe(200);
    expect((await post('quota-r', '/api/v1/sessions/r2/used', skill(3500))).status).toBe(200);
    expect(await usage('quota-r')).toEqual(await counted('quota-r'));
  });

  it('a commit moves the live bytes into its archive, exactly; an MCP remember past the quota stores nothing', async () => {
    const said = 'I prefer dark themes and vim keybindings. Maria owns the database migration.';
    expect((await post('quota-k', '/api/v1/sessions/c/messages', { role: 'user', content: said })).status).toBe(200);
    const commit = await post('quota-k', '/api/v1/sessions/c/commit', {});
    expect(commit.status).toBe(200);
    await eventually(async () => {
      const r = await app.request('GET', `/api/v1/tasks/${commit.body.result.task_id}`, { headers: as('quota-k') });
      return ['completed', 'failed'].includes(r.body.result?.status) ? r.body.result : null;
    });
    expect(await liveMessages('quota-k')).toBe(0);
    expect(await usage('quota-k')).toEqual(await counted('quota-k'));
    // `remember` in dev mode writes to the `default` account (at its node quota after the MCP test above):
    // grow one of its files until 500 bytes are left.
    const filler = 'viking://resources/m/f0.md';
    if ((await read('default', filler)).status === 404) expect((await write('default', filler, 'x')).status).toBe(200);
    const left = MAX_BYTES - (await counted('default')).contentBytes;
    expect((await write('default', filler, 'f'.repeat(left - 500 + 1), 'replace')).status).toBe(200);
    const sessionsBefore = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sessions WHERE account_id = 'default'`,
    );
    const r = await callMcpTool(app.url, 'unused-in-dev-mode', 'remember', {
      messages: [
        { role: 'user', content: 'u'.repeat(300) },
        { role: 'assistant', content: 'a'.repeat(300) },
      ],
    });
    expect(r.result.isError).toBe(true);
    expect(r.result.content[0].text).toContain('account storage quota exceeded');
    const sessionsAfter = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sessions WHERE account_id = 'default'`,
    );
    expect(sessionsAfter.rows[0].n).toBe(sessionsBefore.rows[0].n);
    expect(await usage('default')).toEqual(await counted('default'));
  });

  it('bounds the sessions of an account: creating or auto-creating one more is 413, existing ones go on', async () => {
    for (let i = 0; i < MAX_SESSIONS; i++) {
      expect((await post('quota-f', '/api/v1/sessions', { session_id: `s${i}` })).status).toBe(200);
    }
    const status = await app.request('GET', '/api/v1/system/status', { headers: as('quota-f') });
    expect(status.body.result.storage).toMatchObject({ sessions: MAX_SESSIONS, max_sessions: MAX_SESSIONS });
    const over = await post('quota-f', '/api/v1/sessions', { session_id: 'one-more' });
    expect(over.status).toBe(413);
    expect(over.body.error.details).toMatchObject({ limit: 'account_sessions', max: MAX_SESSIONS, used: MAX_SESSIONS });
    expect(over.body.error.message).toContain('MUNINN_ACCOUNT_MAX_SESSIONS');
    // A first message to a new id materialises a session: refused the same way.
    const implicit = await post('quota-f', '/api/v1/sessions/implicit/messages', { role: 'user', content: 'hello' });
    expect(implicit.status).toBe(413);
    // The existing sessions take messages, and an existing id is still a conflict, not a quota error.
    expect((await post('quota-f', '/api/v1/sessions/s0/messages', { role: 'user', content: 'hi' })).status).toBe(200);
    expect((await post('quota-f', '/api/v1/sessions', { session_id: 's1' })).body.error.code).toBe('ALREADY_EXISTS');
    // A context request naming a new session is still answered (statelessly).
    const ctx = await post('quota-f', '/api/v1/search/search', {
      query: 'hello',
      mode: 'context',
      session_id: 'ctx-new',
      max_tokens: 300,
    });
    expect(ctx.status).toBe(200);
    // Another account is not limited by this one; deleting a session makes room.
    expect((await post('quota-g', '/api/v1/sessions', { session_id: 'mine' })).status).toBe(200);
    const del = await app.request('DELETE', '/api/v1/sessions/s2', { headers: as('quota-f') });
    expect(del.status).toBe(200);
    expect((await post('quota-f', '/api/v1/sessions', { session_id: 'one-more' })).status).toBe(200);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sessions WHERE account_id = 'quota-f'`,
    );
    expect(rows[0].n).toBe(MAX_SESSIONS);
  });

  it('the OpenAPI document lists the 413 of every route a quota can refuse', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    const routes = [
      '/api/v1/content/write',
      '/api/v1/content/batch-write',
      '/api/v1/fs/mkdir',
      '/api/v1/fs/mv',
      '/api/v1/sessions',
      '/api/v1/sessions/{sessionId}/messages',
      '/api/v1/sessions/{sessionId}/messages/batch',
      '/api/v1/sessions/{sessionId}/used',
    ];
    for (const route of routes) {
      const codes = Object.keys(doc.paths[route].post.responses);
      expect({ route, codes }).toEqual({ route, codes: expect.arrayContaining(['413']) });
    }
  });
});

// Users per account (docs/limits-and-security.md, "Storage quota"): an account admin's key registers users
// (each with a key) up to MUNINN_ACCOUNT_MAX_USERS; the admin made with the account counts.
describe.each(storeModes())('account user quota (store: %s)', (store) => {
  const ROOT = 'root-key-for-user-quota-0123456789';
  const MAX_USERS = 3;
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_ACCOUNT_MAX_USERS: String(MAX_USERS) } });
  }, 120_000);
  afterAll(() => app?.close());
  const account = async (id: string) => {
    const r = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: id, admin_user_id: 'boss' },
    });
    expect(r.status).toBe(200);
    return r.body.result.user_key as string;
  };
  const register = (key: string, id: string, user: string) =>
    app.request('POST', `/api/v1/admin/accounts/${id}/users`, { key, body: { user_id: user, role: 'user' } });

  it('registering one user past the bound is 413 naming it; an existing id is still 409; deleting one makes room', async () => {
    const admin = await account('team');
    expect((await register(admin, 'team', 'u1')).status).toBe(200);
    expect((await register(admin, 'team', 'u2')).status).toBe(200);
    const over = await register(admin, 'team', 'u3');
    expect([over.status, over.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(over.body.error.details).toEqual({ limit: 'account_users', max: MAX_USERS, used: MAX_USERS, requested: 1 });
    expect(over.body.error.message).toContain('the account holds 3 users, its most (MUNINN_ACCOUNT_MAX_USERS)');
    expect((await register(admin, 'team', 'u1')).status).toBe(409);
    const users = await app.request('GET', '/api/v1/admin/accounts/team/users', { key: admin });
    expect(users.body.result.map((u: { user_id: string }) => u.user_id)).toEqual(['boss', 'u1', 'u2']);
    // Another account registers on; a deleted user frees a place.
    const other = await account('crew');
    expect((await register(other, 'crew', 'u3')).status).toBe(200);
    expect((await app.request('DELETE', '/api/v1/admin/accounts/team/users/u2', { key: admin })).status).toBe(200);
    expect((await register(admin, 'team', 'u3')).status).toBe(200);
  });

  it('concurrent registrations cannot pass the bound together', async () => {
    const admin = await account('rush');
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((u) => register(admin, 'rush', u).then((r) => r.status)),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(MAX_USERS - 1);
    expect(answers.filter((s) => s === 413)).toHaveLength(6 - (MAX_USERS - 1));
    const users = await app.request('GET', '/api/v1/admin/accounts/rush/users', { key: admin });
    expect(users.body.result).toHaveLength(MAX_USERS);
  });

  it('the OpenAPI document lists the 413 of user registration', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/admin/accounts/{accountId}/users'].post.responses)).toContain('413');
  });
});

describe('the size of one file (MUNINN_FILE_MAX_BYTES)', () => {
  let app: TestApp;
  const write = (uri: string, content: string, mode = 'create') =>
    app.request('POST', '/api/v1/content/write', { body: { uri, content, mode } });
  const read = async (uri: string) =>
    (await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`)).body.result as string;

  beforeAll(async () => {
    app = await startTestApp({ env: { MUNINN_FILE_MAX_BYTES: '1024' } });
  }, 60_000);
  afterAll(() => app?.close());

  it('is not passed by appends, nor by a write or a batch; a file that does not grow is written', async () => {
    const uri = 'viking://resources/log.md';
    expect((await write(uri, 'a'.repeat(800))).status).toBe(200);
    // Appends grew a file without bound (each under the body limit): its export line could pass the import's bound.
    const appended = await write(uri, 'b'.repeat(300), 'append');
    expect([appended.status, appended.body.error?.details]).toEqual([
      413,
      expect.objectContaining({ field: 'content', limit: 'file_bytes', max: 1024 }),
    ]);
    expect(await read(uri)).toBe('a'.repeat(800));
    expect((await write('viking://resources/big.md', 'c'.repeat(2000))).status).toBe(413);
    const batch = await app.request('POST', '/api/v1/content/batch-write', {
      body: {
        root_uri: 'viking://resources',
        operations: [
          { uri: 'viking://resources/small.md', content: 'small', mode: 'create' },
          { uri: 'viking://resources/large.md', content: 'd'.repeat(1500), mode: 'create' },
        ],
      },
    });
    expect([batch.status, batch.body.error?.details?.resource]).toEqual([413, 'viking://resources/large.md']);
    // Counted as an export writes it: 200 control characters are 1,202 bytes there (each `\u0001`).
    const escaped = await write('viking://resources/ctl.md', '\u0001'.repeat(200));
    expect([escaped.status, escaped.body.error?.details?.limit]).toEqual([413, 'file_bytes']);
    expect((await write(uri, 'e'.repeat(1000), 'replace')).status).toBe(200);
  });
});

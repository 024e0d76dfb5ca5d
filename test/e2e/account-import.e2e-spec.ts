import { IncomingMessage, request } from 'node:http';
import { eventually, startTestApp, storeModes, TestApp } from '@app/testing';

// Importing an account (docs/limits-and-security.md, "Importing an account"): root posts an export back
// as NDJSON and gets a new account holding the same data (users with new keys, files with their times
// and tags, sessions with archives and live messages), searchable once indexed; a refused line names
// itself and leaves no account behind.
const ROOT = 'root-key-for-account-import-0123456789';

type Line = Record<string, any>;

describe.each(storeModes())('account import (store: %s)', (store) => {
  let app: TestApp;
  const keys: Record<string, string> = {};
  let exported: Line[] = [];
  const as = (key: string, method: string, path: string, body?: unknown) => app.request(method, path, { key, body });
  const exportOf = async (account: string): Promise<Line[]> => {
    const r = await fetch(`${app.url}/api/v1/admin/accounts/${account}/export`, { headers: { 'x-api-key': ROOT } });
    expect(r.status).toBe(200);
    return (await r.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
  };
  const importAs = async (account: string, body: string, key = ROOT, type = 'application/x-ndjson') => {
    const r = await fetch(`${app.url}/api/v1/admin/accounts/${account}/import`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': type },
      body,
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const ndjson = (lines: Line[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  /** An exported session line made a never-committed session `id` with `policy`. */
  const uncommitted = (line: Line, id: string, policy: Record<string, number>) => ({
    ...line,
    session_id: id,
    commit_count: 0,
    retention_mode: '',
    last_commit_at: null,
    auto_commit_policy: policy,
  });
  /** Imports `lines` as `account` (200) and waits until u1's session of the account's name is committed once. */
  const importedAndCommitted = async (account: string, lines: Line[]) => {
    const r = await importAs(account, ndjson(lines));
    expect(r.status).toBe(200);
    const key: string = r.body.result.users.find((u: Line) => u.user_id === 'u1').user_key;
    const meta = await eventually(async () => {
      const m = (await as(key, 'GET', `/api/v1/sessions/${account}`)).body.result;
      return m?.commit_count === 1 ? m : null;
    }, 30_000);
    return { key, meta };
  };
  const accountGone = async (account: string) =>
    (await as(ROOT, 'GET', `/api/v1/admin/accounts/${account}`)).status === 404;

  beforeAll(async () => {
    app = await startTestApp({
      store,
      rootApiKey: ROOT,
      // One user per account by default: the source's own max_users (2) is above it, and its import must
      // be held to the account's own bound, not the deployment's.
      // One import at a time per gateway, so the bound is reached by two.
      env: {
        MUNINN_IMPORT_MAX_LINE_BYTES: '65536',
        // At most half the line bound (config): a file at it exports as a line the import reads.
        MUNINN_FILE_MAX_BYTES: '32768',
        MUNINN_IMPORT_MAX_BYTES: '1048576',
        MUNINN_ACCOUNT_MAX_USERS: '1',
        MUNINN_IMPORT_MAX_CONCURRENT: '1',
      },
    });
    keys.boss = (
      await as(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: 'source', admin_user_id: 'boss' })
    ).body.result.user_key;
    await as(ROOT, 'PUT', '/api/v1/admin/accounts/source/limits', { max_sessions: 77, max_users: 2 });
    keys.u1 = (
      await as(keys.boss, 'POST', '/api/v1/admin/accounts/source/users', { user_id: 'u1' })
    ).body.result.user_key;
    // 300 files: more than one batch of the import (256 nodes).
    for (let b = 0; b < 2; b++) {
      const operations = Array.from({ length: 150 }, (_, i) => ({
        uri: `viking://resources/bulk/f${String(b * 150 + i).padStart(3, '0')}.md`,
        content: `bulk file ${b * 150 + i}`,
        mode: 'create',
      }));
      const w = await as(keys.boss, 'POST', '/api/v1/content/batch-write', {
        root_uri: 'viking://resources/bulk',
        operations,
      });
      expect(w.status).toBe(200);
    }
    const memory = {
      uri: 'viking://user/u1/memories/preferences/editor.md',
      content: 'Prefers vim keybindings 🐉 and 深色 themes, especially the solarized palette.',
      mode: 'create',
      tags: ['topic=editor'],
      wait: true,
    };
    expect((await as(keys.u1, 'POST', '/api/v1/content/write', memory)).status).toBe(200);
    // Made with a description, which the export carries and the import keeps (it heads the directory's summaries).
    const mkdir = { uri: 'viking://resources/empty', description: 'Kept empty for the spring catalogue.' };
    expect((await as(keys.boss, 'POST', '/api/v1/fs/mkdir', mkdir)).status).toBe(200);
    // A session with its own policies, committed with turn-budget retention: the copy must behave alike.
    const created = await as(keys.u1, 'POST', '/api/v1/sessions', {
      session_id: 's1',
      auto_commit_policy: { message_count_threshold: 40, idle_timeout_seconds: 7200 },
      memory_policy: { peer: { enabled: false } },
    });
    expect(created.status).toBe(200);
    await as(keys.u1, 'POST', '/api/v1/sessions/s1/messages/batch', {
      messages: [
        { role: 'user', content: 'I moved to Lisbon last week.' },
        { role: 'assistant', content: 'Noted: Lisbon.' },
      ],
    });
    const commit = (
      await as(keys.u1, 'POST', '/api/v1/sessions/s1/commit', {
        retention_mode: 'turn_budget',
        keep_recent_turn_count: 0,
        retained_message_token_budget: 5000,
        min_raw_tail_steps: 2,
      })
    ).body.result;
    await eventually(async () => {
      const t = (await as(keys.u1, 'GET', `/api/v1/tasks/${commit.task_id}`)).body.result;
      return t?.status === 'completed' ? t : null;
    });
    await as(keys.u1, 'POST', '/api/v1/sessions/s1/messages', {
      role: 'user',
      content: 'And I adopted a cat.',
      peer_id: 'friend',
    });
    // A tool output over the 20,000-character threshold, stored as a tool result (its file and its record), and a
    // usage record no commit has consumed yet.
    const toolPart = { type: 'tool', tool_id: 'call_1', tool_name: 'read_file', tool_status: 'completed' };
    const withTool = await as(keys.u1, 'POST', '/api/v1/sessions/s1/messages', {
      role: 'assistant',
      parts: [
        { type: 'text', text: 'I read the vet records.' },
        { ...toolPart, tool_output: 'vet '.repeat(5500) },
      ],
    });
    expect(withTool.status).toBe(200);
    const used = { contexts: ['viking://user/u1/memories/preferences/editor.md'] };
    expect((await as(keys.u1, 'POST', '/api/v1/sessions/s1/used', used)).status).toBe(200);
    exported = await exportOf('source');
  }, 180_000);
  afterAll(() => app?.close());

  it('makes a new account of an export: users with new keys, limits, files with times and tags, sessions, all searchable', async () => {
    const r = await importAs('copy', ndjson(exported));
    expect(r.status).toBe(200);
    const result = r.body.result;
    const end = exported[exported.length - 1];
    expect(result).toMatchObject({
      account_id: 'copy',
      nodes: end.nodes,
      sessions: end.sessions,
      archives: end.archives,
      messages: end.messages,
    });
    expect(end).toMatchObject({ sessions: 1, archives: 1, messages: 2, tool_results: 1, usage: 1 });
    expect(result).toMatchObject({ tool_results: 1, usage: 1 });
    expect(end.nodes).toBeGreaterThan(300);
    const users = Object.fromEntries(result.users.map((u: Line) => [u.user_id, u]));
    expect(Object.keys(users).sort()).toEqual(['boss', 'u1']);
    expect(users.boss.role).toBe('admin');
    expect(users.u1.user_key).not.toBe(keys.u1);

    // The new account is in service, with the source's own limits, and its import in the trail.
    const account = (await as(ROOT, 'GET', '/api/v1/admin/accounts/copy')).body.result;
    expect(account.suspended).toBeFalsy();
    expect((await as(ROOT, 'GET', '/api/v1/admin/accounts/copy/limits')).body.result.own).toEqual({
      max_sessions: 77,
      max_users: 2,
    });
    const trail = (await as(ROOT, 'GET', '/api/v1/admin/accounts/copy/audit')).body.result.events;
    expect(trail.map((e: Line) => e.action)).toContain('account.import');

    // The same data, exported again: every node (times, tags, bodies), session, archive and message.
    const again = await exportOf('copy');
    const strip = (lines: Line[]) => lines.filter((l) => l.type !== 'account');
    const dirs = (lines: Line[]) =>
      strip(lines).map((l) => (l.type === 'node' && l.kind === 'directory' ? { ...l, updated_at: '-' } : l));
    expect(dirs(again)).toEqual(dirs(exported));
    expect(again[0].users.map((u: Line) => [u.user_id, u.role])).toEqual([
      ['boss', 'admin'],
      ['u1', 'user'],
    ]);
    const message = again.find((l) => l.type === 'message')!;
    expect(message.extra).toMatchObject({ peer_id: 'friend' });

    // Indexed again from the bodies: the memory is found with the user's new key, and the source's key
    // does not reach the copy.
    await eventually(async () => {
      const f = await as(users.u1.user_key, 'POST', '/api/v1/search/find', { query: 'solarized palette', limit: 3 });
      const hits = [...(f.body.result?.memories ?? []), ...(f.body.result?.resources ?? [])];
      return hits.some((h: Line) => h.uri === 'viking://user/u1/memories/preferences/editor.md') ? hits : null;
    });
    const own = await as(keys.u1, 'GET', '/api/v1/sessions/s1');
    expect(own.status).toBe(200);
    const copied = await as(users.u1.user_key, 'GET', '/api/v1/sessions/s1');
    expect(copied.status).toBe(200);
    // The whole meta, the account aside: counters, times, the policies, the retention the last commit asked for.
    expect(copied.body.result).toEqual({
      ...own.body.result,
      created_by_account_id: 'copy',
      user: { ...own.body.result.user, account_id: 'copy' },
    });
    expect(copied.body.result).toMatchObject({
      auto_commit_policy: { message_count_threshold: 40, idle_timeout_seconds: 7200 },
      memory_policy: { peer: { enabled: false } },
      retention_mode: 'turn_budget',
      retained_message_token_budget: 5000,
      min_raw_tail_steps: 2,
    });
    // Its tool result is read through the copy's routes (before, the file came and its record did not: empty).
    const results = await as(users.u1.user_key, 'GET', '/api/v1/sessions/s1/tool-results');
    const source = await as(keys.u1, 'GET', '/api/v1/sessions/s1/tool-results');
    expect(results.body.result).toEqual(source.body.result);
    expect(results.body.result.tool_results).toMatchObject([{ tool_name: 'read_file', original_chars: 22000 }]);
    // The imported session goes on: a new message and a commit number after the imported archive.
    const next = await as(users.u1.user_key, 'POST', '/api/v1/sessions/s1/messages', { role: 'user', content: 'Hi' });
    expect(next.status).toBe(200);
    const commit = await as(users.u1.user_key, 'POST', '/api/v1/sessions/s1/commit');
    expect(commit.status).toBe(200);
    const imported = exported.find((l) => l.type === 'archive')!.archive_index;
    expect(commit.body.result.archive_uri).toMatch(new RegExp(`archive_0*${imported + 1}$`));
  });

  it("schedules an imported session's idle commit, and gives an earlier export's session a new one's defaults", async () => {
    const sessionLine = exported.find((l) => l.type === 'session')!;
    const messageLine = exported.find((l) => l.type === 'message')!;
    const base = ['type', 'user_id', 'session_id', 'created_at', 'updated_at', 'commit_count', 'event_tags'];
    // A session line as exports before the settings were exported wrote it.
    const earlier = Object.fromEntries(Object.entries(sessionLine).filter(([k]) => base.includes(k)));
    const lines = [
      exported[0],
      uncommitted(sessionLine, 'idle', { idle_timeout_seconds: 1 }),
      // Its last message long ago: idle already, so only a scheduled idle check can commit it.
      { ...messageLine, session_id: 'idle', seq: 1, created_at: '2026-01-01T00:00:00.000Z' },
      { ...earlier, session_id: 'earlier', commit_count: 0 },
      { type: 'end', nodes: 0, sessions: 2, archives: 0, messages: 1 },
    ];
    const { key, meta } = await importedAndCommitted('idle', lines);
    expect(meta).toMatchObject({ message_count: 0, pending_tokens: 0 });
    expect(meta.last_auto_commit_at).not.toBe('');
    expect((await as(key, 'GET', '/api/v1/sessions/earlier')).body.result).toMatchObject({
      auto_commit_policy: null,
      memory_policy: null,
      retention_mode: '',
      keep_recent_count: 0,
      min_raw_tail_steps: 1,
      last_commit_at: '',
      memories_extracted: {},
    });
  });

  it('commits an imported session over its threshold, not at its next message', async () => {
    const sessionLine = exported.find((l) => l.type === 'session')!;
    const messageLine = exported.find((l) => l.type === 'message')!;
    const now = new Date().toISOString();
    const lines = [
      exported[0],
      {
        ...uncommitted(sessionLine, 'over', { message_count_threshold: 1, idle_timeout_seconds: 86_400 }),
        last_auto_commit_at: null,
      },
      // Two live messages, just written: a day from idle, over the threshold of one.
      { ...messageLine, session_id: 'over', seq: 1, created_at: now },
      { ...messageLine, session_id: 'over', seq: 2, message_id: 'msg-over-2', created_at: now },
      { type: 'end', nodes: 0, sessions: 1, archives: 0, messages: 2 },
    ];
    const { meta } = await importedAndCommitted('over', lines);
    expect(meta).toMatchObject({ message_count: 0, pending_tokens: 0 });
  });

  it('refuses an account id in use (409) and changes nothing', async () => {
    const r = await importAs('source', ndjson(exported));
    expect(r.status).toBe(409);
    expect((await exportOf('source')).length).toBe(exported.length);
    expect(r.body.error.details.reason).toBeUndefined();
    // An id held by an import that is running (or stopped with its gateway) says so.
    await as(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: 'held', admin_user_id: 'boss' });
    await as(ROOT, 'PUT', '/api/v1/admin/accounts/held/suspension', { suspended: true, reason: 'import in progress' });
    const held = await importAs('held', ndjson(exported));
    expect([held.status, held.body.error.details.reason]).toEqual([409, 'import_in_progress']);
    expect(held.body.error.message).toMatch(/delete it; then import again/);
  });

  it('refuses a cut export, a bad line or wrong counts by line and field, and leaves no account behind', async () => {
    const cut = await importAs('cut', ndjson(exported.slice(0, -1)));
    expect(cut.status).toBe(400);
    expect(cut.body.error.message).toMatch(/without its end line/);
    expect(await accountGone('cut')).toBe(true);

    const bad = exported.map((l, i) => (i === 5 ? { ...l, uri: 'viking://~/not/canonical.md' } : l));
    const r = await importAs('bad', ndjson(bad));
    expect(r.status).toBe(400);
    expect(r.body.error.details.field).toBe('line 6: uri');
    expect(await accountGone('bad')).toBe(true);
    const trail = (await as(ROOT, 'GET', '/api/v1/admin/accounts/bad/audit')).body.result.events;
    expect(trail.map((e: Line) => e.action)).toEqual(['account.delete', 'account.import']);

    const counts = exported.map((l) => (l.type === 'end' ? { ...l, nodes: l.nodes + 1 } : l));
    const c = await importAs('counts', ndjson(counts));
    expect(c.status).toBe(400);
    expect(c.body.error.details.field).toBe(`line ${exported.length}: nodes`);
    expect(await accountGone('counts')).toBe(true);

    const garbage = await importAs('garbage', `${JSON.stringify(exported[0])}\n{not json\n`);
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.details.field).toBe('line 2');
    expect(await accountGone('garbage')).toBe(true);

    // What the store cannot hold, sent as JSON escapes: a NUL in a body, a lone surrogate, deep nesting.
    const fileAt = exported.findIndex((l) => l.type === 'node' && l.kind === 'file');
    for (const [name, patch] of [
      ['nul', { content: 'a\u0000b' }],
      ['surrogate', { content: 'a\ud800b' }],
      ['deep', { tags: JSON.parse('['.repeat(100) + ']'.repeat(100)) }],
    ] as const) {
      const hostile = exported.map((l, i) => (i === fileAt ? { ...l, ...patch } : l));
      const h = await importAs(name, ndjson(hostile));
      expect([name, h.status, h.body.error.details.field]).toEqual([name, 400, `line ${fileAt + 1}`]);
      expect(await accountGone(name)).toBe(true);
    }

    // What the store refuses with an error of its own (a 500 before these were checked on the line): a segment
    // its key cannot hold, a year it cannot hold; and a URI so deep that building its ancestors held the loop.
    for (const [name, patch, field] of [
      ['long-segment', { uri: `viking://resources/${'s'.repeat(3000)}.md` }, 'uri'],
      ['deep-uri', { uri: `viking://resources/${'a/'.repeat(20000)}f.md` }, 'uri'],
      ['year-zero', { created_at: '0000-06-01T00:00:00Z' }, 'created_at'],
    ] as const) {
      const hostile = exported.map((l, i) => (i === fileAt ? { ...l, ...patch } : l));
      const h = await importAs(name, ndjson(hostile));
      expect([name, h.status, h.body.error.details.field]).toEqual([name, 400, `line ${fileAt + 1}: ${field}`]);
      expect(await accountGone(name)).toBe(true);
    }

    // Listed twice: a node (in another batch than its first line) and a session, each named at its line.
    const endAt = exported.length - 1;
    const withEnd = (lines: Line[], more: Record<string, number>) =>
      lines.map((l) =>
        l.type === 'end' ? { ...l, ...Object.fromEntries(Object.entries(more).map(([k, v]) => [k, l[k] + v])) } : l,
      );
    const sessionAt = exported.findIndex((l) => l.type === 'session');
    const twiceNode = withEnd([...exported.slice(0, sessionAt), exported[fileAt], ...exported.slice(sessionAt)], {
      nodes: 1,
    });
    const dn = await importAs('twice-node', ndjson(twiceNode));
    expect([dn.status, dn.body.error.details.field, dn.body.error.message]).toEqual([
      400,
      `line ${sessionAt + 1}: uri`,
      expect.stringMatching(/listed twice/),
    ]);
    expect(await accountGone('twice-node')).toBe(true);
    // A tool result listed twice in its session (a 500 from the store's key before).
    const toolAt = exported.findIndex((l) => l.type === 'tool_result');
    const twiceTool = withEnd([...exported.slice(0, toolAt + 1), exported[toolAt], ...exported.slice(toolAt + 1)], {
      tool_results: 1,
    });
    const dt = await importAs('twice-tool', ndjson(twiceTool));
    expect([dt.status, dt.body.error?.details?.field]).toEqual([400, `line ${toolAt + 2}: tool_result_id`]);
    expect(await accountGone('twice-tool')).toBe(true);
    const twiceSession = withEnd([...exported.slice(0, endAt), exported[sessionAt], exported[endAt]], { sessions: 1 });
    const ds = await importAs('twice-session', ndjson(twiceSession));
    expect([ds.status, ds.body.error.details.field]).toEqual([400, `line ${endAt + 1}: session_id`]);
    expect(await accountGone('twice-session')).toBe(true);
  });

  it('bounds a line and the body (413 naming them), needs NDJSON (415) and the root key (403)', async () => {
    const long = [
      exported[0],
      { ...exported[1], type: 'node', kind: 'file', uri: 'viking://resources/big.md', content: 'x'.repeat(70_000) },
    ];
    const r = await importAs('long', ndjson(long));
    expect(r.status).toBe(413);
    expect(r.body.error.details).toMatchObject({ field: 'line 2', limit_bytes: 65536 });
    expect(await accountGone('long')).toBe(true);

    const huge = await importAs('huge', `${JSON.stringify(exported[0])}\n`.padEnd(1_100_000, ' '));
    expect(huge.status).toBe(413);
    expect(huge.body.error.details).toMatchObject({ field: 'body' });

    // The account's own quotas, as the export carries them: users at the account line, sessions as they come.
    const users = await importAs('users', ndjson([{ ...exported[0], limits: { max_users: 1 } }, ...exported.slice(1)]));
    expect([users.status, users.body.error.details]).toEqual([
      413,
      expect.objectContaining({ field: 'line 1', limit: 'account_users', max: 1 }),
    ]);
    expect(await accountGone('users')).toBe(true);
    const endAt = exported.length - 1;
    const second = { ...exported.find((l) => l.type === 'session')!, session_id: 's2' };
    const sessions = await importAs(
      'sessions',
      ndjson([
        { ...exported[0], limits: { ...exported[0].limits, max_sessions: 1 } },
        ...exported.slice(1, endAt),
        second,
        { ...exported[endAt], sessions: exported[endAt].sessions + 1 },
      ]),
    );
    expect([sessions.status, sessions.body.error.details]).toEqual([
      413,
      expect.objectContaining({ field: `line ${endAt + 1}`, limit: 'account_sessions', max: 1 }),
    ]);
    expect(await accountGone('sessions')).toBe(true);

    expect((await importAs('json', ndjson(exported), ROOT, 'application/json')).status).toBe(415);
    const admin = await importAs('byadmin', ndjson(exported), keys.boss);
    expect(admin.status).toBe(403);
    expect(await accountGone('byadmin')).toBe(true);
  });

  it('runs MUNINN_IMPORT_MAX_CONCURRENT imports at once per gateway: 429 beyond, free again once it ends', async () => {
    const empty = { type: 'end', nodes: 0, sessions: 0, archives: 0, messages: 0 };
    // An upload that sends its account line and waits (node:http: the body is written as the test goes).
    const upload = request(`${app.url}/api/v1/admin/accounts/slow/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
    });
    const answer = new Promise<IncomingMessage>((resolve, reject) =>
      upload.on('response', resolve).on('error', reject),
    );
    upload.write(`${JSON.stringify(exported[0])}\n`);
    await eventually(async () => (await as(ROOT, 'GET', '/api/v1/admin/accounts/slow')).status === 200 || null);
    const second = await importAs('second', ndjson([exported[0], empty]));
    expect([second.status, second.body.error.code, second.body.error.details]).toEqual([
      429,
      'RESOURCE_EXHAUSTED',
      expect.objectContaining({ limit: 'imports', max: 1 }),
    ]);
    expect(await accountGone('second')).toBe(true);
    upload.end(`${JSON.stringify(empty)}\n`);
    const first = await answer;
    first.resume();
    expect(first.statusCode).toBe(200);
    expect((await importAs('second', ndjson([exported[0], empty]))).status).toBe(200);
  });

  it('an account deleted while its import runs cancels the import: nothing of it is left, and an operator cannot lift its suspension', async () => {
    const upload = request(`${app.url}/api/v1/admin/accounts/cancelled/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
    });
    const answer = new Promise<IncomingMessage>((resolve, reject) =>
      upload.on('response', resolve).on('error', reject),
    );
    const sessionAt = exported.findIndex((l) => l.type === 'session');
    upload.write(ndjson(exported.slice(0, 20)));
    await eventually(async () => (await as(ROOT, 'GET', '/api/v1/admin/accounts/cancelled')).status === 200 || null);
    // The suspension is the import's: lifted, the import wrote on under an account served meanwhile.
    const lift = await as(ROOT, 'PUT', '/api/v1/admin/accounts/cancelled/suspension', { suspended: false });
    expect([lift.status, lift.body.error.details.reason]).toEqual([409, 'import_in_progress']);
    expect((await as(ROOT, 'DELETE', '/api/v1/admin/accounts/cancelled')).status).toBe(200);
    upload.end(ndjson(exported.slice(20)));
    const res = await answer;
    let text = '';
    for await (const chunk of res) text += chunk;
    const body = JSON.parse(text);
    // It answered 200 (its end found nothing to lift), having written its nodes and sessions under no account.
    expect([res.statusCode, body.error.details.reason]).toEqual([409, 'import_cancelled']);
    expect(sessionAt).toBeGreaterThan(20);
    // An account made again under the id starts empty: nothing the import wrote after the deletion is in it.
    const again = await as(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: 'cancelled', admin_user_id: 'boss' });
    expect(again.status).toBe(200);
    const lines = await exportOf('cancelled');
    expect(lines.filter((l) => l.type === 'node' || l.type === 'session')).toEqual([]);
  });

  it('counts imports by outcome on /metrics', async () => {
    const text = (await as(ROOT, 'GET', '/metrics')).text as string;
    const count = (outcome: string) =>
      Number(new RegExp(`^muninn_account_imports_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    // What the cases above did: at least this many of each.
    expect({ imported: count('imported') >= 2, refused: count('refused') >= 10 }).toEqual({
      imported: true,
      refused: true,
    });
  });

  it('documents the route and its bounds in OpenAPI', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    const body =
      doc.paths['/api/v1/admin/accounts/{accountId}/import'].post.requestBody.content['application/x-ndjson'];
    expect(body.schema).toMatchObject({ maxLength: 1048576, 'x-max-line-bytes': 65536 });
  });
});

import { get, IncomingMessage } from 'node:http';
import { eventually, startTestApp, storeModes, TestApp } from '@app/testing';

// Exporting an account (docs/limits-and-security.md, "Exporting an account"): root streams one tenant's
// data as NDJSON, page by page: the account and its users, every file with its body (private memories
// included), every session with its archives and live messages, and an `end` line with the counts.
const ROOT = 'root-key-for-account-export-0123456789';

describe.each(storeModes())('account export (store: %s)', (store) => {
  let app: TestApp;
  const keys: Record<string, string> = {};
  const as = (key: string, method: string, path: string, body?: unknown) => app.request(method, path, { key, body });
  const exportOf = (account: string, key = ROOT) =>
    fetch(`${app.url}/api/v1/admin/accounts/${account}/export`, { headers: { 'x-api-key': key } });

  beforeAll(async () => {
    // One export at a time per gateway, so the bound is reached by two.
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_EXPORT_MAX_CONCURRENT: '1' } });
    for (const id of ['exported', 'other']) {
      const r = await as(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: id, admin_user_id: 'boss' });
      keys[id] = r.body.result.user_key;
    }
    keys.u1 = (
      await as(keys.exported, 'POST', '/api/v1/admin/accounts/exported/users', { user_id: 'u1' })
    ).body.result.user_key;
  }, 120_000);
  afterAll(() => app?.close());

  it('streams every file, private memory, session, archive and message of the account, and nothing of another', async () => {
    // 600 files: more than one page of node rows (500).
    for (let b = 0; b < 3; b++) {
      const operations = Array.from({ length: 200 }, (_, i) => ({
        uri: `viking://resources/bulk/f${String(b * 200 + i).padStart(3, '0')}.md`,
        content: `bulk file ${b * 200 + i}`,
        mode: 'create',
      }));
      const w = await as(keys.exported, 'POST', '/api/v1/content/batch-write', {
        root_uri: 'viking://resources/bulk',
        operations,
      });
      expect(w.status).toBe(200);
    }
    const unicode = 'Prefers vim keybindings 🐉 and 深色 themes.\nSecond line with "quotes".';
    expect(
      (
        await as(keys.u1, 'POST', '/api/v1/content/write', {
          uri: 'viking://user/u1/memories/preferences/editor.md',
          content: unicode,
          mode: 'create',
        })
      ).status,
    ).toBe(200);
    await as(keys.other, 'POST', '/api/v1/content/write', {
      uri: 'viking://resources/secret-of-other.md',
      content: 'not for export',
      mode: 'create',
    });
    expect((await as(keys.u1, 'POST', '/api/v1/sessions', { session_id: 's1' })).status).toBe(200);
    await as(keys.u1, 'POST', '/api/v1/sessions/s1/messages/batch', {
      messages: [
        { role: 'user', content: 'I moved to Lisbon last week.' },
        { role: 'assistant', content: 'Noted: Lisbon.' },
      ],
    });
    const commit = (await as(keys.u1, 'POST', '/api/v1/sessions/s1/commit')).body.result;
    await eventually(async () => {
      const t = (await as(keys.u1, 'GET', `/api/v1/tasks/${commit.task_id}`)).body.result;
      return t?.status === 'completed' ? t : null;
    });
    await as(keys.u1, 'POST', '/api/v1/sessions/s1/messages', { role: 'user', content: 'And I adopted a cat.' });

    const r = await exportOf('exported');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await r.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'account', format: 1, account_id: 'exported', suspended_at: null });
    expect(lines[0].users.map((u: any) => [u.user_id, u.role])).toEqual([
      ['boss', 'admin'],
      ['u1', 'user'],
    ]);
    const nodes = new Map(lines.filter((l) => l.type === 'node').map((l) => [l.uri, l]));
    for (let i = 0; i < 600; i++) {
      const uri = `viking://resources/bulk/f${String(i).padStart(3, '0')}.md`;
      expect([uri, nodes.get(uri)?.content]).toEqual([uri, `bulk file ${i}`]);
    }
    expect(nodes.get('viking://user/u1/memories/preferences/editor.md')).toMatchObject({
      kind: 'file',
      context_type: 'memory',
      content: unicode,
    });
    expect(nodes.get('viking://resources/bulk')).toMatchObject({ kind: 'directory' });
    expect(nodes.get('viking://resources/bulk')).not.toHaveProperty('content');
    // The commit's extracted memories are files of the account too.
    expect(
      [...nodes.keys()].some(
        (u) => u.startsWith('viking://user/u1/memories/') && /lisbon/i.test(nodes.get(u).content ?? ''),
      ),
    ).toBe(true);
    expect([...nodes.keys()].filter((u) => u.includes('secret-of-other'))).toEqual([]);
    const uris = lines.filter((l) => l.type === 'node').map((l) => l.uri);
    expect(uris).toEqual([...uris].sort());

    const session = lines.findIndex((l) => l.type === 'session');
    expect(lines[session]).toMatchObject({ user_id: 'u1', session_id: 's1', commit_count: 1 });
    expect(lines[session + 1]).toMatchObject({ type: 'archive', archive_index: 1, session_id: 's1' });
    expect(JSON.stringify(lines[session + 1].messages)).toContain('I moved to Lisbon last week.');
    expect(lines[session + 2]).toMatchObject({ type: 'message', role: 'user', content: 'And I adopted a cat.' });
    const end = lines[lines.length - 1];
    expect(end).toEqual({
      type: 'end',
      nodes: nodes.size,
      sessions: 1,
      archives: 1,
      messages: 1,
      tool_results: 0,
      usage: 0,
    });

    const trail = (await as(ROOT, 'GET', '/api/v1/admin/accounts/exported/audit')).body.result.events;
    expect(trail[0]).toMatchObject({ action: 'account.export', actor: { role: 'root' } });
  });

  it("only root exports; an unknown account is 404 in the envelope; another account's export is its own", async () => {
    const admin = await exportOf('exported', keys.exported);
    expect([admin.status, ((await admin.json()) as any).error.code]).toEqual([403, 'PERMISSION_DENIED']);
    const missing = await exportOf('no-such-account');
    expect([missing.status, ((await missing.json()) as any).error.code]).toEqual([404, 'NOT_FOUND']);
    const other = (await (await exportOf('other')).text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(other.filter((l) => l.type === 'node' && l.kind === 'file').map((l) => l.uri)).toEqual([
      'viking://resources/secret-of-other.md',
    ]);
    expect(other[other.length - 1]).toMatchObject({ type: 'end', sessions: 0, messages: 0 });
  });

  it('exports one user: their space and sessions only, importable as a new account holding that user', async () => {
    // Beside u1's data (the first case): another user whose id extends u1's, and the admin's own memory and session.
    const u10 = (await as(keys.exported, 'POST', '/api/v1/admin/accounts/exported/users', { user_id: 'u10' })).body
      .result.user_key;
    await as(u10, 'POST', '/api/v1/content/write', {
      uri: 'viking://user/u10/memories/note.md',
      content: 'u10 only',
      mode: 'create',
    });
    await as(keys.exported, 'POST', '/api/v1/content/write', {
      uri: 'viking://user/boss/memories/note.md',
      content: 'boss only',
      mode: 'create',
    });
    await as(keys.exported, 'POST', '/api/v1/sessions', { session_id: 'boss-s' });

    const r = await fetch(`${app.url}/api/v1/admin/accounts/exported/users/u1/export`, {
      headers: { 'x-api-key': ROOT },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toContain('exported.u1.ndjson');
    const text = await r.text();
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'account', account_id: 'exported', user_id: 'u1', limits: {} });
    expect(lines[0].users.map((u: any) => u.user_id)).toEqual(['u1']);
    const uris = lines.filter((l) => l.type === 'node').map((l) => l.uri);
    expect(uris).toContain('viking://user/u1/memories/preferences/editor.md');
    expect(uris.every((u: string) => u === 'viking://user/u1' || u.startsWith('viking://user/u1/'))).toBe(true);
    expect(lines.filter((l) => l.type === 'session').map((l) => l.session_id)).toEqual(['s1']);
    const end = lines[lines.length - 1];
    expect(end).toMatchObject({ type: 'end', nodes: uris.length, sessions: 1, archives: 1, messages: 1 });
    const trail = (await as(ROOT, 'GET', '/api/v1/admin/accounts/exported/audit')).body.result.events;
    expect(trail[0]).toMatchObject({ action: 'user.export', user_id: 'u1', actor: { role: 'root' } });

    // Root only; an unknown user 404 in the envelope.
    const admin = await fetch(`${app.url}/api/v1/admin/accounts/exported/users/u1/export`, {
      headers: { 'x-api-key': keys.exported },
    });
    expect(admin.status).toBe(403);
    const missing = await fetch(`${app.url}/api/v1/admin/accounts/exported/users/nobody/export`, {
      headers: { 'x-api-key': ROOT },
    });
    expect([missing.status, ((await missing.json()) as any).error.code]).toEqual([404, 'NOT_FOUND']);

    // The user's export is an import: a new account holding u1 with their memory and session.
    const imported = await fetch(`${app.url}/api/v1/admin/accounts/u1-alone/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
      body: text,
    });
    expect(imported.status).toBe(200);
    const result = ((await imported.json()) as any).result;
    expect(result).toMatchObject({ account_id: 'u1-alone', nodes: end.nodes, sessions: 1, messages: 1 });
    const key = result.users[0].user_key;
    const read = await as(
      key,
      'GET',
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/u1/memories/preferences/editor.md')}`,
    );
    expect(read.body.result).toContain('Prefers vim keybindings');
  });

  describe('a large export (10 MB: more than the connection buffers while its client pauses)', () => {
    const FILES = 320;
    const uri = (i: number) => `viking://resources/big/f${String(i).padStart(4, '0')}.md`;
    beforeAll(async () => {
      keys.big = (
        await as(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: 'big', admin_user_id: 'boss' })
      ).body.result.user_key;
      for (let b = 0; b < FILES / 64; b++) {
        const operations = Array.from({ length: 64 }, (_, i) => ({
          uri: uri(b * 64 + i),
          content: `file ${b * 64 + i} `.padEnd(32 * 1024, 'x'),
          mode: 'create',
        }));
        const w = await as(keys.big, 'POST', '/api/v1/content/batch-write', {
          root_uri: 'viking://resources/big',
          operations,
        });
        expect(w.status).toBe(200);
      }
    }, 120_000);

    /** Reads what is left of a paused export and parses its lines. */
    async function rest(reader: ReadableStreamDefaultReader<Uint8Array>, head: string) {
      const decoder = new TextDecoder();
      let text = head;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
    }

    (store === 'postgres' ? it : it.skip)(
      'is the account at one instant on PostgreSQL: a move and a write made while it streams are not in it',
      async () => {
        const r = await exportOf('big');
        expect(r.status).toBe(200);
        const reader = r.body!.getReader();
        const head = new TextDecoder().decode((await reader.read()).value);
        expect(head).toContain('"type":"account"');
        // While the export waits for its client: its last file moves before its first, and a file is added.
        const moved = await as(keys.big, 'POST', '/api/v1/fs/mv', {
          from_uri: uri(FILES - 1),
          to_uri: 'viking://resources/big/a-moved.md',
        });
        expect(moved.status).toBe(200);
        const added = await as(keys.big, 'POST', '/api/v1/content/write', {
          uri: 'viking://resources/big/zz-new.md',
          content: 'written during the export',
          mode: 'create',
        });
        expect(added.status).toBe(200);
        const lines = await rest(reader, head);
        const files = lines.filter((l) => l.type === 'node' && l.kind === 'file').map((l) => l.uri);
        // As when it began: the moved file under its old name, once; the new file not there.
        expect(files).toContain(uri(FILES - 1));
        expect(files).not.toContain('viking://resources/big/a-moved.md');
        expect(files).not.toContain('viking://resources/big/zz-new.md');
        expect(files).toHaveLength(FILES);
        expect(lines[lines.length - 1]).toMatchObject({ type: 'end', nodes: files.length + 2 });
        // The next export sees them.
        const after = await rest((await exportOf('big')).body!.getReader(), '');
        const now = after.filter((l) => l.type === 'node').map((l) => l.uri);
        expect(now).toEqual(
          expect.arrayContaining(['viking://resources/big/a-moved.md', 'viking://resources/big/zz-new.md']),
        );
        expect(now).not.toContain(uri(FILES - 1));
      },
    );

    it('runs MUNINN_EXPORT_MAX_CONCURRENT at once per gateway (429 beyond), and a client that goes away frees its slot', async () => {
      // The first export's client reads a little and pauses (node:http, so that going away closes its socket).
      const first = await new Promise<IncomingMessage>((resolve, reject) =>
        get(`${app.url}/api/v1/admin/accounts/big/export`, { headers: { 'x-api-key': ROOT } }, resolve).on(
          'error',
          reject,
        ),
      );
      expect(first.statusCode).toBe(200);
      await new Promise((r) => first.once('data', r));
      first.pause();
      const second = await exportOf('other');
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('5');
      expect(((await second.json()) as any).error).toMatchObject({
        code: 'RESOURCE_EXHAUSTED',
        details: { limit: 'exports', max: 1 },
      });
      // The first client goes away mid-export: its slot is freed and the next export runs.
      first.destroy();
      const third = await eventually(async () => {
        const t = await exportOf('other');
        return t.status === 200 ? t : (await t.text(), null);
      });
      expect((await third.text()).trimEnd().split('\n').pop()).toContain('"type":"end"');
    });
  });
});

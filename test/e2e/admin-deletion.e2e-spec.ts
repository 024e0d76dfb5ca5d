// docs/limits-and-security.md, "Tenant data on deletion and in MCP": deleting a user or an account through
// the admin routes leaves no row of theirs in any table of the store, on PGlite and on PostgreSQL.
import { bulkInsertIndexed, Db, STORE_DB } from '@app/store';
import { callMcpTool, eventually, startTestApp, storeModes, TestApp } from '@app/testing';

const ROOT = 'admin-deletion-root-key-0123456789';
const ACCOUNT = 'gone';

describe.each(storeModes())('deleting a user or an account leaves nothing behind (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  let boss: string;
  let dave: string;

  const call = (method: string, path: string, key: string, body?: unknown) =>
    app.request(method, path, { key, ...(body === undefined ? {} : { body }) });
  const count = async (sql: string, params: unknown[]) =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n;
  /** Rows of the account in every table that has an account_id column (accounts itself included). */
  const rowsLeft = async () => {
    const { rows } = await db.query<{ table_name: string }>(
      `SELECT DISTINCT table_name FROM information_schema.columns
        WHERE column_name = 'account_id' AND table_schema = current_schema() ORDER BY table_name`,
    );
    const out: Record<string, number> = {};
    for (const { table_name: t } of rows) out[t] = await count(`${t} WHERE account_id = $1`, [ACCOUNT]);
    return out;
  };
  /** What dave leaves: memories and folders, a committed session and its task, an upload link. */
  const fill = async (key: string, user: string) => {
    const M = `viking://user/${user}/memories`;
    for (const [name, text] of [
      ['preferences/tea.md', `${user} prefers green tea in the morning.`],
      ['entities/lisbon.md', `${user} moved to Lisbon in March.`],
    ])
      expect(
        (
          await call('POST', '/api/v1/content/write', key, {
            uri: `${M}/${name}`,
            content: text,
            mode: 'create',
            wait: true,
          })
        ).status,
      ).toBe(200);
    const sid = (await call('POST', '/api/v1/sessions', key, {})).body.result.session_id as string;
    await call('POST', `/api/v1/sessions/${sid}/messages`, key, {
      role: 'user',
      content: 'I adopted a cat named Miso.',
    });
    const task = (await call('POST', `/api/v1/sessions/${sid}/commit`, key, {})).body.result.task_id as string;
    await eventually(async () => (await call('GET', `/api/v1/tasks/${task}`, key)).body.result?.status === 'completed');
    const mcp = await callMcpTool(app.url, key, 'add_resource', { path: '/tmp/notes.md' });
    expect([mcp.status, mcp.result.isError]).toEqual([200, undefined]);
    expect((await call('POST', '/api/v1/system/wait', key, { timeout: 30 })).status).toBe(200);
  };

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT });
    db = app.nest.get<Db>(STORE_DB);
    boss = (await call('POST', '/api/v1/admin/accounts', ROOT, { account_id: ACCOUNT, admin_user_id: 'boss' })).body
      .result.user_key;
    dave = (await call('POST', `/api/v1/admin/accounts/${ACCOUNT}/users`, boss, { user_id: 'dave', role: 'user' })).body
      .result.user_key;
  }, 120000);
  afterAll(() => app.close());

  it("a deleted user's rows are gone from every table; the rest of the account is untouched", async () => {
    await fill(dave, 'dave');
    await fill(boss, 'boss');
    // More of dave's nodes (and term rows) than one statement of the deletion removes: it deletes in steps.
    const many = Array.from({ length: 5100 }, (_, i) => ({
      uri: `viking://user/dave/memories/bulk/n${i}.md`,
      kind: 'file' as const,
      content: `bulk ${i}`,
      abstract: '',
      searchText: `bulk note numbat${i}`,
      embedding: null,
    }));
    for (let at = 0; at < many.length; at += 1000)
      await bulkInsertIndexed(db, ACCOUNT, many.slice(at, at + 1000), null);
    const of = (user: string) => ({
      nodes: `nodes WHERE account_id = '${ACCOUNT}' AND owner_user_id = '${user}'`,
      sessions: `sessions WHERE account_id = '${ACCOUNT}' AND user_id = '${user}'`,
      tasks: `session_tasks WHERE account_id = '${ACCOUNT}' AND user_id = '${user}'`,
      marks: `session_archive_marks WHERE account_id = '${ACCOUNT}' AND user_id = '${user}'`,
      uploads: `upload_tokens WHERE account_id = '${ACCOUNT}' AND user_id = '${user}'`,
      terms: `term_df WHERE account_id = '${ACCOUNT}' AND owner_id = '${user}'`,
      folders: `sidecar_state WHERE account_id = '${ACCOUNT}' AND starts_with(uri, 'viking://user/${user}')`,
    });
    const tally = async (user: string): Promise<Record<string, number>> =>
      Object.fromEntries(
        await Promise.all(Object.entries(of(user)).map(async ([k, sql]) => [k, await count(sql, [])])),
      );
    const before = await tally('dave');
    for (const [k, n] of Object.entries(before)) expect([k, n > 0]).toEqual([k, true]);
    const bossBefore = await tally('boss');

    expect((await call('DELETE', `/api/v1/admin/accounts/${ACCOUNT}/users/dave`, boss)).status).toBe(200);
    expect(await tally('dave')).toEqual({
      nodes: 0,
      sessions: 0,
      tasks: 0,
      marks: 0,
      uploads: 0,
      terms: 0,
      folders: 0,
    });
    expect(await tally('boss')).toEqual(bossBefore);
    const found = await call('POST', '/api/v1/search/find', boss, { query: 'green tea morning' });
    expect(
      found.body.result.memories.map((m: { uri: string }) => m.uri).filter((u: string) => u.includes('/dave')),
    ).toEqual([]);
  });

  it("a write after its user's row is gone is refused, whatever a gateway's key cache still says", async () => {
    // What a deletion racing a write leaves: the user's row deleted and committed while the key is still cached (or
    // its write waited on the deletion). Before, the write then landed under the deleted ids, for a user made again
    // under them to find; now each write holds its user's row, and finds none.
    const erin = (await call('POST', `/api/v1/admin/accounts/${ACCOUNT}/users`, boss, { user_id: 'erin' })).body.result
      .user_key as string;
    const first = { uri: 'viking://user/erin/memories/preferences/a.md', content: 'Erin likes tea.', mode: 'create' };
    expect((await call('POST', '/api/v1/content/write', erin, first)).status).toBe(200);
    await db.query('DELETE FROM users WHERE account_id = $1 AND user_id = $2', [ACCOUNT, 'erin']);
    const late = { uri: 'viking://user/erin/memories/preferences/b.md', content: 'Erin likes coffee.', mode: 'create' };
    const refused = await call('POST', '/api/v1/content/write', erin, late);
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
    const session = await call('POST', '/api/v1/sessions', erin, { session_id: 'late' });
    expect(session.status).toBe(401);
    expect(await count(`nodes WHERE account_id = $1 AND uri = $2`, [ACCOUNT, late.uri])).toBe(0);
    expect(await count(`sessions WHERE account_id = $1 AND user_id = 'erin'`, [ACCOUNT])).toBe(0);
    // Reads are not writes: the cached key still reads (until the cache forgets it).
    expect((await call('GET', '/api/v1/fs/ls?uri=viking://user/erin/memories', erin)).status).toBe(200);
  });

  it('a deleted account has no row left in any table with an account_id', async () => {
    const before = await rowsLeft();
    expect(before['nodes']).toBeGreaterThan(0);
    expect(before['term_df']).toBeGreaterThan(0);
    expect((await call('DELETE', `/api/v1/admin/accounts/${ACCOUNT}`, ROOT)).status).toBe(200);
    const after = await rowsLeft();
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(Object.keys(after)).toEqual(expect.arrayContaining(['accounts', 'nodes', 'term_df', 'session_tasks']));
    // A re-created account of that name starts empty.
    const again = await call('POST', '/api/v1/admin/accounts', ROOT, { account_id: ACCOUNT, admin_user_id: 'boss' });
    const key = again.body.result.user_key as string;
    expect((await call('GET', '/api/v1/fs/ls?uri=viking://user/boss/memories', key)).body.result).toEqual([]);
  });
});

import { Db, STORE_DB } from '@app/store';
import { startTestApp, storeModes, TestApp } from '@app/testing';

// The admin audit trail (docs/limits-and-security.md, "Audit trail"): every change to an account, its
// users, their roles and keys, and its limits is recorded with who made it and the request id, listed
// newest first to root and to the account's admin, kept past the account's deletion, never with a key.
const ROOT = 'root-key-for-admin-audit-0123456789';

describe.each(storeModes())('admin audit trail (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  const call = (method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>) =>
    app.request(method, `/api/v1/admin/accounts${path}`, { key, body, headers });
  const trail = async (account: string, key: string, query = '') => {
    const r = await call('GET', `/${account}/audit${query}`, key);
    expect(r.status).toBe(200);
    return r.body.result as { events: any[]; next_before: number | null };
  };

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_AUDIT_RETENTION_DAYS: '30' } });
    db = app.nest.get<Db>(STORE_DB);
  }, 120_000);
  afterAll(() => app?.close());

  it('records each change with its actor, details and request id, newest first, past the deletion, without keys', async () => {
    const created = await call('POST', '', ROOT, { account_id: 'audited', admin_user_id: 'boss' });
    const boss = created.body.result.user_key as string;
    const other = (await call('POST', '', ROOT, { account_id: 'bystander', admin_user_id: 'boss' })).body.result
      .user_key as string;
    const keys = [boss, other];
    const u1 = await call('POST', '/audited/users', boss, { user_id: 'u1' }, { 'x-request-id': 'audit-req-1' });
    keys.push(u1.body.result.user_key);
    expect((await call('PUT', '/audited/users/u1/role', boss, { role: 'admin' })).status).toBe(200);
    const rotated = await call('POST', '/audited/users/u1/key', boss, { seed: 'a-seed-of-twenty-chars' });
    keys.push(rotated.body.result.user_key);
    expect((await call('PUT', '/audited/limits', ROOT, { max_nodes: 50 })).status).toBe(200);
    // Refused actions change nothing and record nothing.
    expect((await call('PUT', '/audited/limits', boss, { max_nodes: 5000 })).status).toBe(403);
    expect((await call('GET', '/audited/audit', other)).status).toBe(403);
    expect((await call('DELETE', '/audited/users/u1', boss)).status).toBe(200);

    const before = await trail('audited', boss);
    expect(before.events.map((e) => e.action)).toEqual([
      'user.delete',
      'account.limits',
      'user.key',
      'user.role',
      'user.create',
      'account.create',
    ]);
    const byAction = Object.fromEntries(before.events.map((e) => [e.action, e]));
    expect(byAction['account.create']).toMatchObject({
      account_id: 'audited',
      user_id: 'boss',
      actor: { account_id: null, user_id: null, role: 'root' },
      details: { admin_user_id: 'boss', seeded: false },
    });
    expect(byAction['user.create']).toMatchObject({
      user_id: 'u1',
      actor: { account_id: 'audited', user_id: 'boss', role: 'admin' },
      details: { role: 'user', seeded: false },
      request_id: 'audit-req-1',
    });
    expect(byAction['user.role'].details).toEqual({ role: 'admin' });
    expect(byAction['user.key'].details).toEqual({ seeded: true });
    expect(byAction['account.limits']).toMatchObject({ user_id: null, details: { own: { max_nodes: 50 } } });
    expect(typeof byAction['user.delete'].request_id).toBe('string');
    for (const e of before.events) expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 60_000);
    // No key is ever in the trail.
    const text = JSON.stringify(before);
    for (const k of keys) expect(text).not.toContain(k);

    // The account's deletion is recorded, and root still reads the trail of the deleted account.
    expect((await call('DELETE', '/audited', ROOT)).status).toBe(200);
    const after = await trail('audited', ROOT);
    expect(after.events.map((e) => e.action)).toEqual(['account.delete', ...before.events.map((e) => e.action)]);
    // Another account's trail is its own.
    expect((await trail('bystander', other)).events.map((e) => e.action)).toEqual(['account.create']);
    // An account made again under the id is another tenant: its admin reads its own trail only (before, the deleted
    // tenant's users, roles and limits too); root still reads the id's whole record.
    const again = await call('POST', '', ROOT, { account_id: 'audited', admin_user_id: 'newboss' });
    const newBoss = again.body.result.user_key as string;
    expect((await trail('audited', newBoss)).events.map((e) => e.action)).toEqual(['account.create']);
    expect((await trail('audited', ROOT)).events.map((e) => e.action)).toEqual([
      'account.create',
      ...after.events.map((e) => e.action),
    ]);
  });

  it('pages newest first through next_before; bad paging values are 400 naming the field', async () => {
    const boss = (await call('POST', '', ROOT, { account_id: 'paged', admin_user_id: 'boss' })).body.result.user_key;
    for (const u of ['a', 'b', 'c', 'd']) await call('POST', '/paged/users', boss, { user_id: u });
    const seen: string[] = [];
    let query = '?limit=2';
    for (let page = 0; page < 5; page++) {
      const p = await trail('paged', boss, query);
      seen.push(...p.events.map((e) => `${e.action}:${e.user_id}`));
      if (p.next_before === null) break;
      query = `?limit=2&before=${p.next_before}`;
    }
    expect(seen).toEqual(['user.create:d', 'user.create:c', 'user.create:b', 'user.create:a', 'account.create:boss']);
    for (const [q, field] of [
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?limit=two', 'limit'],
      ['?before=-1', 'before'],
      ['?before=9007199254740993', 'before'],
    ]) {
      const r = await call('GET', `/paged/audit${q}`, boss);
      expect([q, r.status, r.body.error.code]).toEqual([q, 400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message).toContain(field);
    }
  });

  it('an event older than MUNINN_AUDIT_RETENTION_DAYS is pruned by the next recording', async () => {
    await call('POST', '', ROOT, { account_id: 'aged', admin_user_id: 'boss' });
    await db.query(`UPDATE audit_events SET at = now() - interval '31 days' WHERE subject_account = 'aged'`);
    expect((await trail('aged', ROOT)).events).toHaveLength(1);
    await call('PUT', '/aged/limits', ROOT, { max_nodes: 20 });
    expect((await trail('aged', ROOT)).events.map((e) => e.action)).toEqual(['account.limits']);
  });

  it('an action whose event cannot be recorded does not take effect: the trail misses no change', async () => {
    const boss = (await call('POST', '', ROOT, { account_id: 'strict', admin_user_id: 'boss' })).body.result
      .user_key as string;
    const u1 = (await call('POST', '/strict/users', boss, { user_id: 'u1' })).body.result.user_key as string;
    // The store refuses every new event (existing rows untouched), as a full disk or a broken table would.
    await db.query('ALTER TABLE audit_events ADD CONSTRAINT refuse_events CHECK (false) NOT VALID');
    const refused: unknown[] = [];
    try {
      // Root's actions and the account admin's: each answers 500 (the store failed), and none takes effect.
      const attempts: Array<[string, string, string, unknown?]> = [
        ['PUT', '/strict/users/u1/role', boss, { role: 'admin' }],
        ['POST', '/strict/users/u1/key', boss, {}],
        ['POST', '/strict/users', boss, { user_id: 'u2' }],
        ['DELETE', '/strict/users/u1', boss],
        ['PUT', '/strict/limits', ROOT, { max_nodes: 70 }],
        ['DELETE', '/strict', ROOT],
        ['POST', '', ROOT, { account_id: 'unrecorded', admin_user_id: 'boss' }],
      ];
      for (const [method, path, key, body] of attempts) {
        const r = await call(method, path, key, body);
        refused.push([method, path, r.status, r.body.error?.code]);
      }
    } finally {
      await db.query('ALTER TABLE audit_events DROP CONSTRAINT refuse_events');
    }
    expect(refused).toEqual([
      ['PUT', '/strict/users/u1/role', 500, 'INTERNAL'],
      ['POST', '/strict/users/u1/key', 500, 'INTERNAL'],
      ['POST', '/strict/users', 500, 'INTERNAL'],
      ['DELETE', '/strict/users/u1', 500, 'INTERNAL'],
      ['PUT', '/strict/limits', 500, 'INTERNAL'],
      ['DELETE', '/strict', 500, 'INTERNAL'],
      ['POST', '', 500, 'INTERNAL'],
    ]);
    // Nothing changed: u1 is a user with its old key, no u2, no own limits, both accounts as they were.
    const user = await call('GET', '/strict/users/u1', boss);
    expect(user.body.result.role).toBe('user');
    expect((await app.request('GET', '/api/v1/fs/ls?uri=viking://resources', { key: u1 })).status).toBe(200);
    expect((await call('GET', '/strict/users/u2', boss)).status).toBe(404);
    expect((await call('GET', '/strict/limits', ROOT)).body.result.own).toEqual({});
    const accounts = (await call('GET', '', ROOT)).body.result as Array<{ account_id: string }>;
    expect(accounts.map((a) => a.account_id)).toContain('strict');
    expect(accounts.map((a) => a.account_id)).not.toContain('unrecorded');
    expect((await trail('strict', ROOT)).events.map((e) => e.action)).toEqual(['user.create', 'account.create']);
  });
});

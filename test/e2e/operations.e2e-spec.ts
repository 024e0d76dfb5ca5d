import { startTestApp, TestApp } from '@app/testing';

const ROOT = 'ops-root-key-0123456789';
const DASHBOARD = '/api/v1/admin/queues';

describe('operations: readiness and the queue dashboard', () => {
  let app: TestApp;
  let adminKey: string;
  let userKey: string;

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT });
    const body = { account_id: 'ops', admin_user_id: 'boss' };
    adminKey = (await app.request('POST', '/api/v1/admin/accounts', { key: ROOT, body })).body.result.user_key;
    const user = { user_id: 'u1', role: 'user' };
    userKey = (await app.request('POST', '/api/v1/admin/accounts/ops/users', { key: adminKey, body: user })).body.result
      .user_key;
  });

  afterAll(() => app?.close());

  it('/health stays the liveness report; /ready says every queue in use has a worker', async () => {
    const health = await app.request('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', healthy: true, checks: { redis: 'up', store: 'up' } });
    const ready = await app.request('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.ready).toBe(true);
    expect(ready.body.missing).toEqual([]);
    for (const q of ['find', 'index', 'sidecar', 'assemble', 'extract', 'session-idle'])
      expect(ready.body.consumers[q]).toBeGreaterThan(0);
  });

  it('the dashboard answers 401 without a key or with a wrong one, 403 to admin and user keys', async () => {
    expect((await app.request('GET', DASHBOARD)).status).toBe(401);
    expect((await app.request('GET', `${DASHBOARD}/api/queues`)).status).toBe(401);
    expect((await app.request('GET', DASHBOARD, { key: 'not-a-key' })).status).toBe(401);
    const asAdmin = await app.request('GET', `${DASHBOARD}/api/queues`, { key: adminKey });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body).toMatchObject({ status: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect((await app.request('GET', DASHBOARD, { key: userKey })).status).toBe(403);
  });

  it('the root key opens the dashboard and its API lists every queue, read-only', async () => {
    const page = await app.request('GET', DASHBOARD, { key: ROOT });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const api = await app.request('GET', `${DASHBOARD}/api/queues`, { key: ROOT });
    expect(api.status).toBe(200);
    const names = (api.body.queues as { name: string; readOnlyMode: boolean }[]).map((q) => q.name).sort();
    expect(names).toEqual([
      'assemble',
      'digest',
      'expand',
      'extract',
      'find',
      'index',
      'scan',
      'session-extract',
      'session-idle',
      'sidecar',
    ]);
    expect((api.body.queues as { readOnlyMode: boolean }[]).every((q) => q.readOnlyMode)).toBe(true);
  });
});

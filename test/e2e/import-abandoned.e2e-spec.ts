import {
  AppProcess,
  buildDist,
  createTestDatabase,
  eventually,
  freePort,
  startAppProcess,
  TestDatabase,
  waitHealthy,
} from '@app/testing';

// An import whose gateway dies (docs/limits-and-security.md, "Importing an account"): two deployments'
// processes share one PostgreSQL store and Redis (PGlite is single-process). While the importing process
// lives, its heartbeat keeps the half-imported account past the abandon window; once it is killed, the
// other process removes the account and the trail says why.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;

const ROOT = 'root-key-for-abandoned-import-0123456789';
const ABANDON_S = 5;

suite('an import abandoned by its gateway (separate processes)', () => {
  let db: TestDatabase;
  let importer: AppProcess;
  let other: AppProcess;
  const urls: string[] = [];
  const rootGet = (url: string, path: string) =>
    fetch(`${url}${path}`, { headers: { 'x-api-key': ROOT } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
    }));

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    const start = async () => {
      const port = await freePort();
      urls.push(`http://127.0.0.1:${port}`);
      return startAppProcess('standalone', {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.url,
        REDIS_URL: process.env.REDIS_URL ?? '',
        MUNINN_QUEUE_PREFIX: `abandoned-${port}`,
        MUNINN_ROOT_API_KEY: ROOT,
        MUNINN_IMPORT_ABANDON_S: String(ABANDON_S),
      });
    };
    importer = await start();
    other = await start();
    await Promise.all(urls.map((u) => waitHealthy(u)));
  }, 240000);

  afterAll(async () => {
    await Promise.all([importer, other].map((p) => p?.kill('SIGKILL')));
    await db?.drop();
  });

  it('keeps a running import past the window, and removes it once its gateway is killed', async () => {
    const [importerUrl, otherUrl] = urls;
    // An upload that sends the account line and one file, then stalls: the import is running.
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => (feed = c) });
    const lines = [
      { type: 'account', format: 1, users: [{ user_id: 'u1', role: 'admin' }], limits: {} },
      {
        type: 'node',
        uri: 'viking://resources/half.md',
        kind: 'file',
        tags: [],
        created_at: '2026-12-01T00:00:00.000Z',
        updated_at: '2026-12-01T00:00:00.000Z',
        content: 'imported halfway',
      },
    ];
    feed.enqueue(new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
    const upload = fetch(`${importerUrl}/api/v1/admin/accounts/halfway/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit).catch((err: Error) => err);

    const held = await eventually(async () => {
      const a = await rootGet(otherUrl, '/api/v1/admin/accounts/halfway');
      return a.status === 200 ? a.body.result : null;
    });
    expect(held.suspended).toMatchObject({ reason: 'import in progress' });
    // How far it got, as of its last heartbeat (every second here): both lines read, the file not yet
    // flushed (nodes go in batches).
    const progress = await eventually(async () => {
      const a = (await rootGet(otherUrl, '/api/v1/admin/accounts/halfway')).body.result;
      return a.import?.lines === 2 ? a.import : null;
    });
    expect(progress).toMatchObject({ lines: 2, nodes: 0, sessions: 0, archives: 0, messages: 0 });
    expect(Date.now() - Date.parse(progress.heartbeat_at)).toBeLessThan(60_000);

    // Past the window, with the importing process alive: its heartbeat keeps the account.
    await new Promise((r) => setTimeout(r, (ABANDON_S + 3) * 1000));
    expect((await rootGet(otherUrl, '/api/v1/admin/accounts/halfway')).status).toBe(200);

    // The importing process dies mid-upload: the other one removes the account once the heartbeat is overdue.
    expect(await importer.kill('SIGKILL')).toBe('SIGKILL');
    // The client sees the connection lost, not an answer (fetch's TypeError comes from another realm).
    expect(String(await upload)).toMatch(/fetch failed/);
    await eventually(
      async () => (await rootGet(otherUrl, '/api/v1/admin/accounts/halfway')).status === 404 || null,
      30_000,
    );
    const trail = (await rootGet(otherUrl, '/api/v1/admin/accounts/halfway/audit')).body.result.events;
    expect(trail[0]).toMatchObject({
      action: 'account.delete',
      actor: { role: 'system', account_id: null, user_id: null },
      details: { reason: expect.stringMatching(/^import abandoned: no heartbeat/) },
    });
    expect(trail.map((e: any) => e.action)).toContain('account.import');
    const metrics = await (await fetch(`${otherUrl}/metrics`, { headers: { 'x-api-key': ROOT } })).text();
    expect(metrics).toMatch(/^muninn_account_imports_total\{outcome="abandoned"\} 1$/m);
    // The id is free again: an import of it goes through.
    const again = await fetch(`${otherUrl}/api/v1/admin/accounts/halfway/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
      body:
        [...lines, { type: 'end', nodes: 1, sessions: 0, archives: 0, messages: 0 }]
          .map((l) => JSON.stringify(l))
          .join('\n') + '\n',
    });
    expect(again.status).toBe(200);
    expect((await rootGet(otherUrl, '/api/v1/admin/accounts/halfway')).body.result).toMatchObject({
      suspended: null,
      import: null,
    });
  }, 120_000);

  it("never removes an account an operator suspended, whatever the reason's words", async () => {
    const [, otherUrl] = urls;
    const as = (method: string, path: string, body: unknown) =>
      fetch(`${otherUrl}${path}`, {
        method,
        headers: { 'x-api-key': ROOT, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await as('POST', '/api/v1/admin/accounts', { account_id: 'paused', admin_user_id: 'boss' })).status).toBe(
      200,
    );
    const s = await as('PUT', '/api/v1/admin/accounts/paused/suspension', {
      suspended: true,
      reason: 'import in progress',
    });
    expect(s.status).toBe(200);
    await new Promise((r) => setTimeout(r, (ABANDON_S + 3) * 1000));
    expect((await rootGet(otherUrl, '/api/v1/admin/accounts/paused')).status).toBe(200);
  }, 60_000);
});

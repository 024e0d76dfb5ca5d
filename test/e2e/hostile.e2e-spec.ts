// Hostile-input regressions of issue 11 that live at the gateway: each `it` names the finding it
// covers. (Store-side findings are in store-safety.e2e-spec.ts, write-path ones in write-path and
// write-faults, property-based fuzzing in fuzz.e2e-spec.ts.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMcpBody, startTestApp, TestApp, untilSlots } from '@app/testing';
import { LedgerRedis } from './context-support';
import { rawRequest } from './hostile-support';

const WRITE = '/api/v1/content/write';
const json = { 'content-type': 'application/json' };

describe('dev mode is localhost-only in fact', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(() => app.close());

  const plant = (
    headers: Record<string, string>,
    body = '{"uri":"viking://~/memories/x.md","content":"planted","mode":"create"}',
  ) => rawRequest(app.url, 'POST', WRITE, { headers, body });

  it('refuses a Host that is not a loopback name (DNS rebinding) with 403 in the envelope', async () => {
    for (const host of [
      'evil.example',
      'evil.example:1933',
      '10.0.0.5',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
    ]) {
      const r = await plant({ ...json, host });
      expect([host, r.status, r.body.error?.code]).toEqual([host, 403, 'PERMISSION_DENIED']);
      expect(r.body.error.message).toContain('Host');
    }
    for (const host of ['localhost', 'LOCALHOST:1933', '127.0.0.1:9', '[::1]:1933', 'app.localhost']) {
      const r = await rawRequest(app.url, 'GET', '/api/v1/system/status', { headers: { host } });
      expect([host, r.status]).toEqual([host, 200]);
    }
  });

  it('refuses a foreign Origin (cross-site POST) and the opaque origin; accepts localhost pages', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'file://']) {
      const r = await plant({ ...json, origin });
      expect([origin, r.status, r.body.error?.code]).toEqual([origin, 403, 'PERMISSION_DENIED']);
    }
    const ok = await plant(
      { ...json, origin: 'http://localhost:3000' },
      '{"uri":"viking://~/memories/ok.md","content":"fine","mode":"create"}',
    );
    expect(ok.status).toBe(200);
  });

  it('refuses form-encoded and text/plain bodies with 415 (no CORS preflight would stop them), and nothing is stored', async () => {
    const cases: [string, string][] = [
      ['application/x-www-form-urlencoded', 'uri=viking://~/memories/form.md&content=planted'],
      ['text/plain', '{"uri":"viking://~/memories/text.md","content":"planted","mode":"create"}'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\nplanted\r\n--x--'],
    ];
    for (const [type, body] of cases) {
      const r = await plant({ 'content-type': type }, body);
      expect([type, r.status, r.body.error?.code]).toEqual([type, 415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
    const noType = await plant({}, '{"uri":"viking://~/memories/none.md","content":"planted","mode":"create"}');
    expect(noType.status).toBe(415);
    for (const name of ['form', 'text', 'none']) {
      const read = await app.request('GET', `/api/v1/content/read?uri=viking://~/memories/${name}.md`);
      expect([name, read.status]).toEqual([name, 404]);
    }
    const charset = await plant(
      { 'content-type': 'application/json; charset=utf-8' },
      '{"uri":"viking://~/memories/cs.md","content":"ok","mode":"create"}',
    );
    expect(charset.status).toBe(200);
  });
});

describe('authentication before the body', () => {
  const ROOT = 'hostile-root-key-0123456789';
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_BODY_LIMIT_BYTES: '1048576' } });
  });

  afterAll(() => app.close());

  it('an unauthenticated 7 MB body is refused 401 without being parsed (not 413, not 400 for bad JSON)', async () => {
    const body = Buffer.alloc(7 * 1024 * 1024, 0x7b); // "{{{{…": invalid JSON, so a parse would answer 400
    const r = await rawRequest(app.url, 'POST', WRITE, { headers: json, body });
    expect([r.status, r.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
    const wrong = await rawRequest(app.url, 'POST', WRITE, { headers: { ...json, 'x-api-key': 'nope' }, body });
    expect([wrong.status, wrong.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('an authenticated body over the limit is 413 in the envelope, from its declared length', async () => {
    const acme = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'boss' },
    });
    const key = acme.body.result.user_key as string;
    const body = Buffer.alloc(2 * 1024 * 1024, 0x7b);
    const r = await rawRequest(app.url, 'POST', WRITE, { headers: { ...json, 'x-api-key': key }, body });
    expect([r.status, r.body.status, r.body.error?.code]).toEqual([413, 'error', 'PAYLOAD_TOO_LARGE']);
  });

  it('public routes still answer without a key', async () => {
    expect((await rawRequest(app.url, 'GET', '/health')).status).toBe(200);
    expect((await rawRequest(app.url, 'GET', '/openapi.json')).status).toBe(200);
  });
});

describe('keys and roles', () => {
  const ROOT = 'hostile-keys-root-0123456789';
  const SEED = 'provisioning-seed-2026';
  let app: TestApp;
  const admin = (path: string, key: string, body: unknown) =>
    app.request('POST', `/api/v1/admin/accounts${path}`, { key, body });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_KEY_SECRET: 'a-server-secret-of-at-least-32-chars!' } });
  });

  afterAll(() => app.close());

  it('a seeded key is an HMAC under the server secret: not the reference hash, and different per account', async () => {
    const a = await admin('', ROOT, { account_id: 'acct-a', admin_user_id: 'boss', seed: SEED });
    const b = await admin('', ROOT, { account_id: 'acct-b', admin_user_id: 'boss', seed: SEED });
    const secretA = a.body.result.user_key.split('.')[2];
    const secretB = b.body.result.user_key.split('.')[2];
    expect(secretA).toMatch(/^[0-9a-f]{64}$/);
    expect(secretA).not.toBe(secretB);
    const { createHash } = await import('node:crypto');
    expect(secretA).not.toBe(createHash('sha256').update(`boss\0${SEED}`).digest('hex'));
    // Reproducible: rotating with the same seed gives the same key back.
    const again = await admin('/acct-a/users/boss/key', ROOT, { seed: SEED });
    expect(again.body.result.user_key).toBe(a.body.result.user_key);
  });

  it('an admin cannot build a working key for a user of another account who got the same seed', async () => {
    const a = await admin('', ROOT, { account_id: 'acct-c', admin_user_id: 'mallory' });
    const b = await admin('', ROOT, { account_id: 'acct-d', admin_user_id: 'boss' });
    const victim = await admin('/acct-d/users', b.body.result.user_key, { user_id: 'victim', seed: SEED });
    expect(victim.status).toBe(200);
    // Mallory gives her own user the same id and seed in her account; the secret part differs.
    const twin = await admin('/acct-c/users', a.body.result.user_key, { user_id: 'victim', seed: SEED });
    const forged = [
      Buffer.from('acct-d').toString('base64url'),
      Buffer.from('victim').toString('base64url'),
      twin.body.result.user_key.split('.')[2],
    ].join('.');
    const r = await app.request('GET', '/api/v1/system/status', { key: forged });
    expect(r.status).toBe(401);
    expect(
      (await app.request('GET', '/api/v1/system/status', { key: victim.body.result.user_key })).body.result.account_id,
    ).toBe('acct-d');
  });

  it('an empty or short seed is a 400 naming the field and the minimum', async () => {
    for (const seed of ['', 'short']) {
      const r = await admin('', ROOT, { account_id: `acct-s${seed.length}`, admin_user_id: 'boss', seed });
      expect([seed, r.status, r.body.error?.code]).toEqual([seed, 400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message).toContain('seed must be at least 16 characters');
    }
    const long = await admin('', ROOT, { account_id: 'acct-long', admin_user_id: 'boss', seed: 'x'.repeat(257) });
    expect(long.status).toBe(400);
  });

  it('a plain user cannot recursively delete or reindex the shared resources tree; an admin can; reads stay open', async () => {
    const acct = await admin('', ROOT, { account_id: 'shared', admin_user_id: 'boss' });
    const bossKey = acct.body.result.user_key as string;
    const userKey = (await admin('/shared/users', bossKey, { user_id: 'pat' })).body.result.user_key as string;
    const write = (key: string, uri: string) =>
      app.request('POST', WRITE, { key, body: { uri, content: `text of ${uri}`, mode: 'create', wait: true } });
    expect((await write(bossKey, 'viking://resources/handbook/a.md')).status).toBe(200);
    expect((await write(userKey, 'viking://resources/handbook/b.md')).status).toBe(200);
    const del = (key: string, uri: string, recursive: boolean) =>
      app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(uri)}&recursive=${recursive}`, { key });
    for (const uri of ['viking://resources', 'viking://resources/handbook']) {
      const r = await del(userKey, uri, true);
      expect([uri, r.status, r.body.error?.code]).toEqual([uri, 403, 'PERMISSION_DENIED']);
    }
    const reindex = await app.request('POST', '/api/v1/content/reindex', {
      key: userKey,
      body: { uri: 'viking://resources/handbook' },
    });
    expect(reindex.status).toBe(403);
    const read = await app.request('GET', '/api/v1/content/read?uri=viking://resources/handbook/a.md', {
      key: userKey,
    });
    expect([read.status, read.body.result]).toEqual([200, 'text of viking://resources/handbook/a.md']);
    const ls = await app.request('GET', '/api/v1/fs/ls?uri=viking://resources/handbook', { key: userKey });
    expect(ls.body.result).toHaveLength(2);
    // A single file is still the user's to delete; the admin may remove the whole tree.
    expect((await del(userKey, 'viking://resources/handbook/b.md', false)).status).toBe(200);
    expect((await del(bossKey, 'viking://resources/handbook', true)).status).toBe(200);
    expect(
      (await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/handbook/a.md', { key: userKey })).status,
    ).toBe(404);
  });

  it('a move removes its source: mv passes the delete rules at its source and the write rules at its destination', async () => {
    // Audit finding 1: a user moved a shared directory into their private space, and anyone moved a scope root.
    const acct = await admin('', ROOT, { account_id: 'movers', admin_user_id: 'boss' });
    const bossKey = acct.body.result.user_key as string;
    const userKey = (await admin('/movers/users', bossKey, { user_id: 'pat' })).body.result.user_key as string;
    const write = (key: string, uri: string) =>
      app.request('POST', WRITE, { key, body: { uri, content: `text of ${uri}`, mode: 'create' } });
    const mv = (key: string, from_uri: string, to_uri: string) =>
      app.request('POST', '/api/v1/fs/mv', { key, body: { from_uri, to_uri } });
    const stat = async (key: string, uri: string) =>
      (await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(uri)}`, { key })).status;
    expect((await write(userKey, 'viking://resources/proj/spec.md')).status).toBe(200);
    expect((await write(bossKey, 'viking://agent/skills/s.md')).status).toBe(200);
    const refused = [
      [userKey, 'viking://resources/proj', 'viking://~/resources/mine', 'Moving a directory of the shared resources'],
      [userKey, 'viking://resources', 'viking://~/resources/all', 'namespace root requires root access'],
      [userKey, 'viking://user/pat', 'viking://resources/pat', 'namespace root requires root access'],
      [bossKey, 'viking://resources', 'viking://~/resources/all', 'namespace root requires root access'],
      [bossKey, 'viking://agent', 'viking://~/resources/agent', 'namespace root requires root access'],
    ];
    for (const [key, from, to, message] of refused) {
      const r = await mv(key, from, to);
      expect([from, r.status, r.body.error?.code]).toEqual([from, 403, 'PERMISSION_DENIED']);
      expect(r.body.error.message).toContain(message);
    }
    expect(await stat(bossKey, 'viking://resources/proj/spec.md')).toBe(200);
    expect(await stat(bossKey, 'viking://agent/skills/s.md')).toBe(200);
    expect(await stat(userKey, 'viking://~/resources/mine')).toBe(404);
    // A single shared file is the user's to delete, so also to move; the destination takes the write rules.
    for (const to of [
      'viking://~/memories',
      'viking://~/sessions/s1/history/x.md',
      'viking://resources/.relations.json',
    ]) {
      const r = await mv(userKey, 'viking://resources/proj/spec.md', to);
      expect([to, r.status, r.body.error?.code, r.body.error?.details?.field]).toEqual([
        to,
        400,
        'INVALID_ARGUMENT',
        'to_uri',
      ]);
    }
    expect((await mv(userKey, 'viking://resources/proj/spec.md', 'viking://resources/proj/spec2.md')).status).toBe(200);
    // Files of a moved directory that would land in a managed place are refused the same way.
    const peers = await mv(bossKey, 'viking://resources/proj', 'viking://~/peers/p1');
    expect([peers.status, peers.body.error?.details?.field]).toEqual([400, 'to_uri']);
    // An admin moves the shared directory.
    expect((await mv(bossKey, 'viking://resources/proj', 'viking://resources/proj2')).status).toBe(200);
    expect(await stat(userKey, 'viking://resources/proj2/spec2.md')).toBe(200);
  });
});

describe('smaller defects', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(() => app.close());

  it('NUL characters in content, tags, message text, a mkdir description or a query are a 400 naming the field', async () => {
    const cases: [string, string, unknown, (string | number)[]][] = [
      ['POST', WRITE, { uri: 'viking://~/memories/nul.md', content: 'a\u0000b', mode: 'create' }, ['body', 'content']],
      [
        'POST',
        WRITE,
        { uri: 'viking://~/memories/nul.md', content: 'ok', tags: ['k=v\u0000'], mode: 'create' },
        ['body', 'tags', 0],
      ],
      ['POST', '/api/v1/sessions/s-nul/messages', { role: 'user', content: 'hi\u0000' }, ['body', 'content']],
      [
        'POST',
        '/api/v1/sessions/s-nul/messages',
        { role: 'user', parts: [{ type: 'text', text: '\u0000' }] },
        ['body', 'parts', 0, 'text'],
      ],
      [
        'POST',
        '/api/v1/fs/mkdir',
        { uri: 'viking://resources/nul-dir', description: 'x\u0000' },
        ['body', 'description'],
      ],
      ['POST', '/api/v1/search/find', { query: 'q\u0000' }, ['body', 'query']],
      ['POST', '/api/v1/search/search', { query: 'q', mode: 'context', session_id: 'a\u0000' }, ['body', 'session_id']],
      ['POST', '/api/v1/sessions/s-nul/used', { contexts: ['viking://resources/a\u0000'] }, ['body', 'contexts', 0]],
      [
        'POST',
        '/api/v1/sessions/s-nul/used',
        { skill: { uri: 'viking://~/skills/s', output: 'o\u0000' } },
        ['body', 'skill', 'output'],
      ],
    ];
    for (const [method, path, body, loc] of cases) {
      const r = await app.request(method, path, { body });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 400, 'INVALID_ARGUMENT']);
      expect([path, r.body.error.details.validation_errors[0].loc]).toEqual([path, loc]);
    }
    const q = await app.request('GET', '/api/v1/content/read?uri=viking://resources/a%00b');
    expect(q.status).toBe(400);
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/nul-dir')).status).toBe(404);
  });

  it('a nested `constructor`, `__proto__` or `prototype` key is a 400 naming it (the fuzz suite found a 500)', async () => {
    const cases: [string, unknown, (string | number)[]][] = [
      ['/api/v1/search/find', { query: 'q', uri: [{ constructor: 'viking://' }] }, ['body', 'uri', 0, 'constructor']],
      [
        '/api/v1/sessions/s-proto/messages',
        { role: 'user', content: 'hi', metadata: { prototype: 1 } },
        ['body', 'metadata', 'prototype'],
      ],
      ['/api/v1/search/search', { query: 'q', filter: { constructor: { a: 1 } } }, ['body', 'filter', 'constructor']],
    ];
    for (const [path, body, loc] of cases) {
      const r = await app.request('POST', path, { body });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 400, 'INVALID_ARGUMENT']);
      expect([path, r.body.error.details.validation_errors[0].loc]).toEqual([path, loc]);
    }
  });

  it('tool-result routes: NUL, repeated and pattern-like queries, odd ids; a long output is searched in linear time', async () => {
    const base = '/api/v1/sessions/s-tr/tool-results';
    const big = 'a'.repeat(30_000);
    const add = await app.request('POST', '/api/v1/sessions/s-tr/messages', {
      body: { role: 'assistant', parts: [{ type: 'tool', tool_id: 'x', tool_name: 'dump', tool_output: big }] },
    });
    expect(add.status).toBe(200);
    const [tr] = (await app.request('GET', base)).body.result.tool_results;
    expect(tr.original_chars).toBe(30_000);
    const one = `${base}/${tr.tool_result_id}`;
    for (const path of [`${one}/search?q=a%00b`, `${one}/search?q=a&q=b`, `${one}?offset=1e3`, `${base}?limit=%00`]) {
      const r = await app.request('GET', path);
      expect([path, r.status, r.body.error?.code]).toEqual([path, 400, 'INVALID_ARGUMENT']);
    }
    // A would-be catastrophic pattern is literal text; a query that almost matches everywhere stays linear.
    for (const q of ['(a+)+$', `${'a'.repeat(999)}b`]) {
      const r = await app.request('GET', `${one}/search?q=${encodeURIComponent(q)}`);
      expect([r.status, r.body.result.matches]).toEqual([200, []]);
    }
    for (const id of ['...', "x'%3B--", 'tr_%F0%9F%98%80', 'tr_%25']) {
      const r = await app.request('GET', `${base}/${id}`);
      expect([id, r.status, r.body.error?.code]).toEqual([id, 404, 'NOT_FOUND']);
    }
  });

  it('dedup ledgers are deleted with their session', async () => {
    const ledger = new LedgerRedis(app);
    try {
      expect((await app.request('POST', '/api/v1/sessions', { body: { session_id: 'led-1' } })).status).toBe(200);
      await ledger.put('default', 'default', 'led-1', { entries: { 'viking://resources/x.md': { turn: 1 } } });
      expect((await app.request('GET', '/api/v1/sessions/led-1/recall-log')).body.result).not.toBeNull();
      expect((await app.request('DELETE', '/api/v1/sessions/led-1')).status).toBe(200);
      expect(await ledger.get('default', 'default', 'led-1')).toBeNull();
      expect((await app.request('POST', '/api/v1/sessions', { body: { session_id: 'led-1' } })).status).toBe(200);
      expect((await app.request('GET', '/api/v1/sessions/led-1/recall-log')).body.result).toBeNull();
    } finally {
      await ledger.close();
    }
  });
});

describe('ledgers of deleted users and accounts', () => {
  const ROOT = 'hostile-ledger-root-0123456789';
  let app: TestApp;
  let ledger: LedgerRedis;
  const admin = (method: string, path: string, body?: unknown) =>
    app.request(method, `/api/v1/admin/accounts${path}`, { key: ROOT, body });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT });
    ledger = new LedgerRedis(app);
  });

  afterAll(async () => {
    await ledger.close();
    await app.close();
  });

  it('a re-created user or account inherits no dedup ledger (and another account keeps its own)', async () => {
    const doc = { entries: { 'viking://resources/x.md': { turn: 1 } } };
    expect((await admin('POST', '', { account_id: 'acme', admin_user_id: 'boss' })).status).toBe(200);
    expect((await admin('POST', '', { account_id: 'acme2', admin_user_id: 'boss' })).status).toBe(200);
    expect((await admin('POST', '/acme/users', { user_id: 'ann' })).status).toBe(200);
    await ledger.put('acme', 'ann', 's1', doc);
    await ledger.put('acme', 'boss', 's1', doc);
    await ledger.put('acme2', 'boss', 's1', doc);
    expect((await admin('DELETE', '/acme/users/ann')).status).toBe(200);
    expect(await ledger.get('acme', 'ann', 's1')).toBeNull();
    expect(await ledger.get('acme', 'boss', 's1')).toEqual(doc);
    const ann = await admin('POST', '/acme/users', { user_id: 'ann' });
    const log = await app.request('GET', '/api/v1/sessions/s1/recall-log', { key: ann.body.result.user_key });
    expect([log.status, log.body.result]).toEqual([200, null]);
    expect((await admin('DELETE', '/acme')).status).toBe(200);
    expect(await ledger.get('acme', 'boss', 's1')).toBeNull();
    expect(await ledger.get('acme2', 'boss', 's1')).toEqual(doc);
  });
});

describe('rate limits and fairness', () => {
  const ROOT = 'hostile-rate-root-0123456789';
  let app: TestApp;
  const keys: Record<string, string> = {};
  const status = (key: string) => app.request('GET', '/api/v1/system/status', { key });

  beforeAll(async () => {
    app = await startTestApp({
      rootApiKey: ROOT,
      env: {
        MUNINN_RATE_KEY_PER_MINUTE: '5',
        MUNINN_RATE_ACCOUNT_PER_MINUTE: '8',
        MUNINN_ACCOUNT_MAX_INFLIGHT: '1',
        MUNINN_ACCOUNT_MAX_QUEUED: '0',
        MUNINN_MCP_MAX_BATCH: '4',
      },
    });
    for (const account of ['ra', 'rb', 'rc', 'rd', 'rf']) {
      const r = await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: account, admin_user_id: 'boss' },
      });
      keys[account] = r.body.result.user_key;
    }
    // Created with the root key, which is never rate-limited (so nothing is counted yet).
    const u = await app.request('POST', '/api/v1/admin/accounts/ra/users', { key: ROOT, body: { user_id: 'u2' } });
    keys.ra2 = u.body.result.user_key;
  });

  afterAll(() => app.close());

  it('per key, then per account: 429 in the envelope with Retry-After; other accounts are untouched', async () => {
    for (let i = 0; i < 5; i++) expect((await status(keys.ra)).status).toBe(200);
    const over = await status(keys.ra);
    expect([over.status, over.body.status, over.body.error.code, over.body.error.details.limit]).toEqual([
      429,
      'error',
      'RESOURCE_EXHAUSTED',
      'key',
    ]);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The account has 8: 5 counted so far (a request its key refused never reaches the account), so
    // its second user gets 3.
    for (let i = 0; i < 3; i++) expect((await status(keys.ra2)).status).toBe(200);
    const account = await status(keys.ra2);
    expect([account.status, account.body.error.details.limit]).toEqual([429, 'account']);
    expect((await status(keys.rb)).status).toBe(200);
    // Refusals at the request gate (before any route) are counted by limit for operators.
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/^muninn_refusals_total\{limit="key",status="429"\} 1$/m);
    expect(metrics).toMatch(/^muninn_refusals_total\{limit="account",status="429"\} 1$/m);
  });

  it('each message of an MCP JSON-RPC batch counts; a batch over MUNINN_MCP_MAX_BATCH is a 400', async () => {
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const headers = { accept: 'application/json, text/event-stream', 'x-api-key': keys.rc };
    const big = await app.request('POST', '/mcp', { headers, body: [1, 2, 3, 4, 5].map(ping) });
    expect(big.status).toBe(400);
    expect(big.body.error.message).toContain('at most 4 messages');
    // 1 (the refused batch) + 4 = 5: the key's whole minute.
    const batch = await app.request('POST', '/mcp', { headers, body: [1, 2, 3, 4].map(ping) });
    expect(batch.status).not.toBe(429);
    const next = await status(keys.rc);
    expect(next.status).toBe(429);
  });

  it('a percent-encoded /mcp path is the MCP route: its batch is bounded and charged per message', async () => {
    // The router decodes `%6d` to `m` before matching, so `/%6dcp` reaches the MCP controller; the gate and the
    // lanes decide by the route it reached, not by the path as sent (which let a batch through unbounded, for one).
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const headers = { accept: 'application/json, text/event-stream', 'x-api-key': keys.rf };
    const big = await app.request('POST', '/%6dcp', { headers, body: [1, 2, 3, 4, 5].map(ping) });
    expect([big.status, big.body.jsonrpc]).toEqual([400, '2.0']);
    expect(big.body.error.message).toContain('at most 4 messages');
    const batch = await app.request('POST', '/%6dcp', { headers, body: [1, 2, 3, 4].map(ping) });
    expect(batch.status).toBe(200);
    expect((await status(keys.rf)).status).toBe(429);
  });

  it("bounds in-flight requests per account: a held request makes the account's next one 429, other accounts still run", async () => {
    const { request } = await import('node:http');
    const url = new URL(app.url);
    // A write whose body never finishes holds its slot (admission happens before the body is read).
    const held = request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/api/v1/content/write',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': keys.rd },
    });
    held.on('error', () => undefined);
    held.write('{"uri":');
    await untilSlots(app.request, 'running', 1);
    const second = await status(keys.rd);
    expect([second.status, second.body.error?.details?.limit]).toEqual([429, 'inflight']);
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await status(keys.rb)).status).toBe(200);
    held.destroy();
    await untilSlots(app.request, 'running', 0);
    expect((await status(keys.rd)).status).toBe(200);
  });

  it('an account\'s own max_inflight widens or narrows its line on the gateway (docs/limits-and-security.md, "Per-account limits")', async () => {
    const { request } = await import('node:http');
    const url = new URL(app.url);
    const boss = (
      await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: 're', admin_user_id: 'boss' },
      })
    ).body.result.user_key as string;
    const second = (
      await app.request('POST', '/api/v1/admin/accounts/re/users', { key: ROOT, body: { user_id: 'u2' } })
    ).body.result.user_key as string;
    const own = (body: unknown) => app.request('PUT', '/api/v1/admin/accounts/re/limits', { key: ROOT, body });
    expect((await own({ max_inflight: 2, requests_per_minute: 100 })).status).toBe(200);
    const hold = (key: string) => {
      const held = request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/v1/content/write',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': key },
      });
      held.on('error', () => undefined);
      held.write('{"uri":');
      return held;
    };
    // Two held requests fit its own line of 2 where the deployment's is 1; the third is refused, naming it.
    const first = hold(boss);
    const other = hold(second);
    await untilSlots(app.request, 'running', 2);
    const third = await status(boss);
    expect([third.status, third.body.error?.details?.limit, third.body.error?.details?.max]).toEqual([
      429,
      'inflight',
      2,
    ]);
    expect(third.body.error.message).toContain("the account's own max_inflight");
    // Lowered to 1 with two running: the line takes no new request until it is back within it.
    expect((await own({ max_inflight: 1, requests_per_minute: 100 })).status).toBe(200);
    first.destroy();
    await untilSlots(app.request, 'running', 1);
    const still = await status(second);
    expect([still.status, still.body.error?.details?.max]).toEqual([429, 1]);
    other.destroy();
    await untilSlots(app.request, 'running', 0);
    expect((await status(second)).status).toBe(200);
  });
});

describe('bounded inputs (limits from config, lowered here)', () => {
  let app: TestApp;
  const env = {
    MUNINN_QUERY_MAX_CHARS: '500',
    MUNINN_URI_MAX_CHARS: '300',
    MUNINN_URI_MAX_SEGMENT_CHARS: '40',
    MUNINN_URI_MAX_DEPTH: '12',
    MUNINN_URI_LIST_MAX_ITEMS: '10',
    MUNINN_TAGS_MAX_ITEMS: '3',
    MUNINN_TAG_MAX_CHARS: '20',
    MUNINN_BATCH_MAX_OPS: '5',
    MUNINN_MESSAGE_MAX_CHARS: '1000',
    MUNINN_DESCRIPTION_MAX_CHARS: '100',
    MUNINN_ID_MAX_CHARS: '32',
    MUNINN_WAIT_MAX_S: '20',
  };
  const deep = (n: number) => `viking://resources/${Array.from({ length: n }, (_, i) => `d${i}`).join('/')}`;
  const expect400 = async (method: string, path: string, body: unknown, loc: (string | number)[], text: string) => {
    const r = await app.request(method, path, body === undefined ? {} : { body });
    expect([path, r.status, r.body.status, r.body.error?.code]).toEqual([path, 400, 'error', 'INVALID_ARGUMENT']);
    expect([path, r.body.error.details.validation_errors[0].loc]).toEqual([path, loc]);
    expect(r.body.error.message).toContain(text);
  };

  beforeAll(async () => {
    app = await startTestApp({ env });
  });

  afterAll(() => app.close());

  it('a long query (60 KB, 1 MB) is a 400 naming body.query and the limit, on /find and in context mode', async () => {
    for (const size of [60_000, 1_000_000]) {
      const query = 'word '.repeat(size / 5);
      await expect400('POST', '/api/v1/search/find', { query }, ['body', 'query'], 'at most 500 characters');
      await expect400(
        'POST',
        '/api/v1/search/search',
        { query, mode: 'context' },
        ['body', 'query'],
        'at most 500 characters',
      );
    }
    const atLimit = await app.request('POST', '/api/v1/search/find', { body: { query: 'x'.repeat(500) } });
    expect(atLimit.status).toBe(200);
  });

  it('URIs: 3,000 segments, a 4,000-character segment and an over-long URI are 400s (body and query string)', async () => {
    await expect400(
      'POST',
      WRITE,
      { uri: deep(3000), content: 'x', mode: 'create' },
      ['body', 'uri'],
      'at most 300 characters',
    );
    await expect400(
      'POST',
      WRITE,
      { uri: deep(12), content: 'x', mode: 'create' },
      ['body', 'uri'],
      'at most 12 path segments',
    );
    await expect400(
      'POST',
      WRITE,
      { uri: `viking://resources/${'s'.repeat(4000)}`, content: 'x', mode: 'create' },
      ['body', 'uri'],
      'at most',
    );
    await expect400(
      'POST',
      WRITE,
      { uri: `viking://resources/${'s'.repeat(41)}`, content: 'x', mode: 'create' },
      ['body', 'uri'],
      'at most 40 characters',
    );
    await expect400(
      'GET',
      `/api/v1/fs/stat?uri=${encodeURIComponent(deep(13))}`,
      undefined,
      ['query', 'uri'],
      'path segments',
    );
    const ok = await app.request('POST', WRITE, {
      // As deep as allowed (12 segments), ending in a file name create mode accepts.
      body: { uri: `${deep(10)}/leaf.md`, content: 'deep but allowed', mode: 'create', wait: true },
    });
    expect(ok.status).toBe(200);
  });

  it('lists: 20,000 target_uri entries, too many exclude_uris, tags or batch operations are 400s naming the field', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `viking://resources/t${i}`);
    await expect400(
      'POST',
      '/api/v1/search/find',
      { query: 'q', target_uri: many },
      ['body', 'target_uri'],
      'at most 10 items',
    );
    await expect400(
      'POST',
      '/api/v1/search/search',
      { query: 'q', mode: 'context', exclude_uris: many.slice(0, 11) },
      ['body', 'exclude_uris'],
      'at most 10 items',
    );
    await expect400(
      'POST',
      WRITE,
      { uri: 'viking://resources/t.md', content: 'x', tags: ['a=1', 'b=2', 'c=3', 'd=4'] },
      ['body', 'tags'],
      'at most 3 items',
    );
    await expect400(
      'POST',
      WRITE,
      { uri: 'viking://resources/t.md', content: 'x', tags: [`a=${'v'.repeat(30)}`] },
      ['body', 'tags', 0],
      'at most 20 characters',
    );
    const operations = Array.from({ length: 6 }, (_, i) => ({ uri: `viking://resources/b/${i}.md`, content: 'x' }));
    await expect400(
      'POST',
      '/api/v1/content/batch-write',
      { root_uri: 'viking://resources/b', operations },
      ['body', 'operations'],
      'at most 5 items',
    );
    // POST /sessions/{id}/used: the bounds pass runs before the session is looked up (s-used does not exist).
    await expect400(
      'POST',
      '/api/v1/sessions/s-used/used',
      { contexts: many.slice(0, 11) },
      ['body', 'contexts'],
      'at most 10 items',
    );
    await expect400(
      'POST',
      '/api/v1/sessions/s-used/used',
      { contexts: [deep(13)] },
      ['body', 'contexts', 0],
      'at most 12 path segments',
    );
    await expect400(
      'POST',
      '/api/v1/sessions/s-used/used',
      { skill: { uri: 'viking://~/skills/s', input: 'x'.repeat(1001) } },
      ['body', 'skill', 'input'],
      'at most 1000',
    );
  });

  it('message text, a mkdir description and ids are bounded', async () => {
    await expect400(
      'POST',
      '/api/v1/sessions/s1/messages',
      { role: 'user', content: 'x'.repeat(1001) },
      ['body', 'content'],
      'at most 1000',
    );
    await expect400(
      'POST',
      '/api/v1/sessions/s1/messages',
      { role: 'user', parts: [{ type: 'text', text: 'x'.repeat(1001) }] },
      ['body', 'parts', 0, 'text'],
      'at most 1000',
    );
    await expect400(
      'POST',
      '/api/v1/fs/mkdir',
      { uri: 'viking://resources/dd', description: 'x'.repeat(101) },
      ['body', 'description'],
      'at most 100',
    );
    await expect400(
      'POST',
      '/api/v1/sessions/s1/messages',
      { role: 'user', content: 'hi', peer_id: 'p'.repeat(33) },
      ['body', 'peer_id'],
      'at most 32',
    );
    // A write's content is free text: only the body limit bounds it, whatever URI it quotes.
    const quoted = await app.request('POST', WRITE, {
      body: { uri: 'viking://resources/q.md', content: deep(3000), mode: 'create' },
    });
    expect(quoted.status).toBe(200);
  });

  it('a wait timeout over MUNINN_WAIT_MAX_S is a 400 naming timeout, on every route that waits', async () => {
    const over = 'less than or equal to 20';
    await expect400('POST', '/api/v1/system/wait', { timeout: 21 }, ['body', 'timeout'], over);
    await expect400(
      'POST',
      WRITE,
      { uri: 'viking://resources/w.md', content: 'x', mode: 'create', wait: true, timeout: 1e9 },
      ['body', 'timeout'],
      over,
    );
    await expect400(
      'POST',
      '/api/v1/content/reindex',
      { uri: 'viking://resources', wait: true, timeout: 3600 },
      ['body', 'timeout'],
      over,
    );
    const stored = await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/w.md');
    expect(stored.status).toBe(404);
    const ok = await app.request('POST', '/api/v1/system/wait', { body: { timeout: 20 } });
    expect(ok.status).toBe(200);
  });

  it('the find fields, per-category maps and path ids are bounded by the configured figures, naming where', async () => {
    const search = (body: Record<string, unknown>) => ({ query: 'q', mode: 'context', ...body });
    const eleven = Array.from({ length: 11 }, () => 'memory');
    await expect400(
      'POST',
      '/api/v1/search/find',
      { query: 'q', context_type: eleven },
      ['body', 'context_type'],
      '10',
    );
    await expect400('POST', '/api/v1/search/find', { query: 'q', level: ['0'.repeat(33)] }, ['body', 'level', 0], '32');
    await expect400('POST', '/api/v1/search/find', { query: 'q', since: '2'.repeat(33) }, ['body', 'since'], '32');
    await expect400(
      'POST',
      '/api/v1/search/find',
      { query: 'q', image_url: 'x'.repeat(301) },
      ['body', 'image_url'],
      '300',
    );
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 1]));
    await expect400('POST', '/api/v1/search/search', search({ quotas: nine }), ['body', 'quotas'], '6');
    await expect400(
      'POST',
      '/api/v1/search/search',
      search({ other_peer_penalty: nine }),
      ['body', 'other_peer_penalty'],
      '7',
    );
    await expect400(
      'POST',
      '/api/v1/search/search',
      search({ peer_scope: 'a'.repeat(33) }),
      ['body', 'peer_scope'],
      '32',
    );
    await expect400('GET', `/api/v1/sessions/${'s'.repeat(33)}`, undefined, ['path', 'sessionId'], '32');
    await expect400('GET', `/api/v1/tasks/${'t'.repeat(33)}`, undefined, ['path', 'taskId'], '32');
    // Within the bounds the same fields are answered.
    const ok = await app.request('POST', '/api/v1/search/find', {
      body: { query: 'q', context_type: ['memory'], level: [0, 1], since: '2026-01-01' },
    });
    expect(ok.status).toBe(200);
  });

  it('a filter of 30,000 leaves or nested 1,000 deep is a 400, never a 500', async () => {
    const leaf = { op: 'must', field: 'uri', conds: ['viking://x'] };
    let nested: unknown = leaf;
    for (let i = 0; i < 1000; i++) nested = { op: 'or', conds: [nested] };
    for (const filter of [{ op: 'or', conds: Array.from({ length: 30_000 }, () => leaf) }, nested]) {
      const r = await app.request('POST', '/api/v1/search/find', { body: { query: 'q', filter } });
      expect([r.status, r.body.error?.code]).toEqual([400, 'INVALID_ARGUMENT']);
    }
  });

  it('the OpenAPI document carries the configured bounds', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    // (A jest-booted server documents only decorated properties; the built one documents all of them,
    // with the default bounds: see libs/client/openapi.json.)
    const s = doc.components.schemas;
    expect(s.FindRequestDto.properties.target_uri.oneOf).toEqual([
      { type: 'string', maxLength: 300 },
      { type: 'array', items: { type: 'string', maxLength: 300 }, maxItems: 10 },
    ]);
    // The built server's document (committed, kept in sync by client-openapi.e2e-spec.ts): defaults.
    const built = JSON.parse(readFileSync(join(__dirname, '../../libs/client/openapi.json'), 'utf8'));
    expect(built.components.schemas.FindRequestDto.properties.query.maxLength).toBe(10000);
    expect(built.components.schemas.BatchWriteDto.properties.operations.maxItems).toBe(256);
    expect(built.components.schemas.AddMessageDto.properties.content.maxLength).toBe(200000);
    const stat = built.paths['/api/v1/fs/stat'].get.parameters.find((p: { name: string }) => p.name === 'uri');
    expect(stat.schema.maxLength).toBe(2048);
    expect(built.components.schemas.WaitDto.properties.timeout.maximum).toBe(600);
  });
});

describe('refusals before routing are enveloped too', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(() => app.close());

  it('headers over the size limit: 431; a path parameter over its length: 400 naming it; a bad path encoding: 400', async () => {
    const huge = await rawRequest(app.url, 'GET', '/api/v1/system/status', {
      headers: { 'x-openviking-actor-peer': 'w'.repeat(20_000) },
    });
    expect([huge.status, huge.body.status, huge.body.error?.code]).toEqual([431, 'error', 'PAYLOAD_TOO_LARGE']);
    const long = await rawRequest(app.url, 'GET', `/api/v1/sessions/${'s'.repeat(300)}`);
    expect([long.status, long.body.status, long.body.error?.code]).toEqual([400, 'error', 'INVALID_ARGUMENT']);
    expect(long.text).toContain('sessionId');
    const bad = await rawRequest(app.url, 'GET', '/api/v1/sessions/%E0%A4%A');
    expect([bad.status < 500, bad.body.status]).toEqual([true, 'error']);
    expect((await rawRequest(app.url, 'GET', '/health')).status).toBe(200);
  });
});

describe('upload links (MCP add_resource) under hostile input', () => {
  const ROOT = 'hostile-upload-root-key-0123456789';
  let app: TestApp;
  let key: string;
  const mcp = async (name: string, args: Record<string, unknown>) => {
    const r = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    const [msg] = parseMcpBody(r.headers.get('content-type'), await r.text());
    // A body the request gate refuses (a NUL, say) never reaches the tool: a JSON-RPC error at HTTP 400.
    if (!msg.result) return { text: `Error (HTTP ${r.status}): ${msg.error.message}`, isError: true };
    return { text: msg.result.content[0].text as string, isError: msg.result.isError === true };
  };
  const link = async (path: string) => {
    const r = await mcp('add_resource', { path });
    return /temp_upload\?token=([A-Za-z0-9_-]+)/.exec(r.text)![1]!;
  };
  const multipart = (bytes: Buffer, boundary = 'b0undary') =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="f.md"\r\ncontent-type: text/plain\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
  const upload = (token: string, body: Buffer, type = 'multipart/form-data; boundary=b0undary') =>
    rawRequest(app.url, 'POST', `/api/v1/resources/temp_upload?token=${token}`, {
      headers: { 'content-type': type, 'content-length': String(body.length) },
      body,
    });

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_UPLOAD_MAX_BYTES: '2048' } });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'upl', admin_user_id: 'alice' },
    });
    key = acct.body.result.user_key;
  }, 60000);

  afterAll(() => app.close());

  it('a file over MUNINN_UPLOAD_MAX_BYTES is a 413 naming file; a body far over it is a 413 too; the link survives', async () => {
    const token = await link('/tmp/big.md');
    const over = await upload(token, multipart(Buffer.alloc(3000, 'a')));
    expect([over.status, over.body.error.code, over.body.error.details.field]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      'file',
    ]);
    const huge = await upload(token, multipart(Buffer.alloc(200_000, 'a')));
    expect([huge.status, huge.body.status]).toEqual([413, 'error']);
    const ok = await upload(token, multipart(Buffer.from('fits\n')));
    expect([ok.status, ok.body.result.uri]).toEqual([200, 'viking://resources/big.md']);
  });

  it('malformed multipart, a missing file field, NUL bytes and invalid UTF-8 are 4xx naming file', async () => {
    const token = await link('/tmp/odd.md');
    const cases: [Buffer, string, number][] = [
      [multipart(Buffer.from('x')), 'multipart/form-data; boundary=other', 400],
      [Buffer.from('--b0undary\r\ncontent-disposition: form-data; name="nope"\r\n\r\nx\r\n--b0undary--\r\n'), '', 400],
      [multipart(Buffer.from('a\u0000b')), '', 400],
      [multipart(Buffer.from([0xc3, 0x28])), '', 415],
    ];
    for (const [body, type, status] of cases) {
      const r = type ? await upload(token, body, type) : await upload(token, body);
      expect([r.status, r.body.error?.details?.field]).toEqual([status, 'file']);
    }
    expect((await upload(token, multipart(Buffer.from('fine\n')))).status).toBe(200);
  });

  it('forged, over-long or reused tokens are 401 before the body is read; JSON on the route is 415', async () => {
    for (const token of ['A'.repeat(32), 'x'.repeat(5000), '../../etc', '']) {
      const r = await upload(encodeURIComponent(token), multipart(Buffer.alloc(1_000, 'a')));
      expect([token.slice(0, 10), r.status]).toEqual([token.slice(0, 10), 401]);
    }
    const token = await link('/tmp/once.md');
    expect((await upload(token, multipart(Buffer.from('1')))).status).toBe(200);
    expect((await upload(token, multipart(Buffer.from('2')))).status).toBe(401);
    const json = await rawRequest(app.url, 'POST', '/api/v1/resources/temp_upload', {
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });

  it('a link acts as its user as they are now: once the user is deleted it is refused (401)', async () => {
    const bob = await app.request('POST', '/api/v1/admin/accounts/upl/users', {
      key,
      body: { user_id: 'bob', role: 'user' },
    });
    const bobKey = bob.body.result.user_key;
    const r = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': bobKey,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'add_resource', arguments: { path: '/tmp/bob.md' } },
      }),
    });
    const [msg] = parseMcpBody(r.headers.get('content-type'), await r.text());
    const token = /temp_upload\?token=([A-Za-z0-9_-]+)/.exec(msg.result.content[0].text)![1]!;
    expect((await app.request('DELETE', '/api/v1/admin/accounts/upl/users/bob', { key })).status).toBe(200);
    const up = await upload(token, multipart(Buffer.from('after deletion\n')));
    expect([up.status, up.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('add_resource arguments are bounded; a target outside the caller is refused before a link exists', async () => {
    const long = await mcp('add_resource', { path: `/tmp/${'a'.repeat(5000)}.md` });
    expect([long.isError, long.text.includes('path: String should have at most 4096 characters')]).toEqual([
      true,
      true,
    ]);
    for (const args of [
      { path: '/tmp/a.md', parent: 'viking://resources/..' },
      { path: '/tmp/..' },
      { path: '/tmp/a.md', to: 'viking://resources/a\u0000.md' },
      { path: '/tmp/.relations.json' },
    ]) {
      const r = await mcp('add_resource', args);
      expect([args, r.text.startsWith('Error')]).toEqual([args, true]);
      expect(r.text).not.toContain('temp_upload?token=');
    }
  });
});

import { request as httpRequest } from 'node:http';
import { connect, Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppProcess, buildDist, eventually, freePort, startAppProcess, waitHealthy } from '@app/testing';

// Slow clients (docs/limits-and-security.md, "Slow clients"), against a real gateway process: a body, a
// header block or an import body trickled or left open cannot hold the gateway's connections or the
// account's request slots past their bounds, and a refusal before the body is read closes the connection.
const ROOT = 'root-key-for-slow-clients-0123456789';
const HEADERS_S = 2;
const BODY_S = 2;
const IDLE_S = 5;
const SEND_IDLE_S = 5;
const MAX_CONNECTIONS = 24;
const MIN_RATE = 1024;

/** A raw connection: what the server sent, and when (ms after opening) it closed the connection. */
interface Raw {
  socket: Socket;
  text(): string;
  closed: Promise<number>;
}

function openRaw(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    let text = '';
    const socket = connect(port, '127.0.0.1');
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - t0)));
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Sends one byte every 300 ms until the connection closes. */
function trickle(raw: Raw, byte = 'a'): void {
  const timer = setInterval(() => !raw.socket.destroyed && raw.socket.write(byte), 300);
  void raw.closed.then(() => clearInterval(timer));
}

function envelopeOf(response: string): any {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
}

describe('slow clients (a gateway process)', () => {
  let gateway: AppProcess;
  let port: number;
  let url: string;
  let key: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-slow-'));

  const root = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': ROOT, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const write = (uri: string) =>
    fetch(`${url}/api/v1/content/write`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ uri, content: `note ${uri}`, mode: 'create' }),
    });
  const metrics = async () => (await fetch(`${url}/metrics`)).text();

  beforeAll(async () => {
    buildDist();
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    gateway = startAppProcess('standalone', {
      PORT: String(port),
      HOST: '127.0.0.1',
      MUNINN_DATA_DIR: dataDir,
      REDIS_URL: process.env.REDIS_URL ?? '',
      MUNINN_QUEUE_PREFIX: `slow-${port}`,
      MUNINN_ROOT_API_KEY: ROOT,
      MUNINN_HTTP_HEADERS_TIMEOUT_S: String(HEADERS_S),
      MUNINN_HTTP_BODY_TIMEOUT_S: String(BODY_S),
      MUNINN_HTTP_BODY_MIN_RATE: String(MIN_RATE),
      MUNINN_IMPORT_IDLE_S: String(IDLE_S),
      MUNINN_HTTP_SEND_IDLE_S: String(SEND_IDLE_S),
      MUNINN_BODY_LIMIT_BYTES: String(64 * 1024 * 1024),
      // The 40 MB file below, past the default bound of one file (which is at most half the import's line bound).
      MUNINN_FILE_MAX_BYTES: String(64 * 1024 * 1024),
      MUNINN_IMPORT_MAX_LINE_BYTES: String(128 * 1024 * 1024),
      MUNINN_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      MUNINN_ACCOUNT_MAX_INFLIGHT: '2',
      MUNINN_IMPORT_MAX_CONCURRENT: '1',
      // Storing the 40 MB file below is one statement, which took PGlite more than the default 5 s on a
      // busy 2-core machine (two suites at once): what is tested here is how slow clients are read.
      MUNINN_STATEMENT_TIMEOUT_MS: '60000',
    });
    await waitHealthy(url);
    const made = await root('POST', '/api/v1/admin/accounts', { account_id: 'acme', admin_user_id: 'alice' });
    key = ((await made.json()) as any).result.user_key;
  }, 240_000);

  afterAll(async () => {
    await gateway?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("ends a trickled body at MUNINN_HTTP_BODY_TIMEOUT_S with a 408 naming the body, freeing the account's slots", async () => {
    // Both of the account's slots (MUNINN_ACCOUNT_MAX_INFLIGHT 2) held by bodies sent a byte at a time.
    const slow = await Promise.all([openRaw(port), openRaw(port)]);
    for (const raw of slow) {
      raw.socket.write(
        'POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          `X-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"uri":"viking://resources/`,
      );
      trickle(raw);
    }
    await new Promise((r) => setTimeout(r, 300));
    // The account's next request waits in line for a slot and is served once the slow ones are cut off.
    const patient = write('viking://resources/patient.md');
    const closedAfter = await Promise.all(slow.map((raw) => raw.closed));
    for (const raw of slow) {
      expect(raw.text()).toMatch(/^HTTP\/1\.1 408 /);
      expect(raw.text()).toMatch(/\r\nconnection: close\r\n/i);
      const { error } = envelopeOf(raw.text());
      expect(error).toMatchObject({
        code: 'DEADLINE_EXCEEDED',
        details: { field: 'body', limit: 'body_timeout', timeout_s: BODY_S, min_rate: MIN_RATE },
      });
      // A byte every 300 ms bought a few milliseconds at most.
      expect(error.details.received_bytes).toBeLessThan(30);
      expect(error.message).toBe(
        `The request body did not arrive in time: ${BODY_S} s (MUNINN_HTTP_BODY_TIMEOUT_S), and 1 s more per ${MIN_RATE} bytes sent (MUNINN_HTTP_BODY_MIN_RATE); ${error.details.received_bytes} bytes came`,
      );
    }
    // Cut off at the bound (trickling, they would have gone on for as long as they liked).
    for (const ms of closedAfter) expect(ms).toBeLessThan((BODY_S + 5) * 1000);
    expect((await patient).status).toBe(200);
    expect(await metrics()).toMatch(/^muninn_refusals_total\{limit="body_timeout",status="408"\} 2$/m);
  }, 60_000);

  it('takes whole a body sent steadily above MUNINN_HTTP_BODY_MIN_RATE for longer than the body timeout', async () => {
    // 12 KiB in 512-byte pieces every 200 ms: 2.5 KiB/s for about 4.8 s, twice the 2 s timeout.
    const body = JSON.stringify({
      uri: 'viking://resources/slow-link.md',
      content: 'x'.repeat(12 * 1024),
      mode: 'create',
    });
    const raw = await openRaw(port);
    raw.socket.write(
      'POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n' +
        `X-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    const started = Date.now();
    for (let at = 0; at < body.length; at += 512) {
      raw.socket.write(body.slice(at, at + 512));
      await new Promise((r) => setTimeout(r, 200));
    }
    await raw.closed;
    expect(Date.now() - started).toBeGreaterThan(BODY_S * 1000);
    expect(raw.text()).toMatch(/^HTTP\/1\.1 200 /);
    const read = await fetch(
      `${url}/api/v1/content/read?uri=${encodeURIComponent('viking://resources/slow-link.md')}`,
      {
        headers: { 'x-api-key': key },
      },
    );
    expect(((await read.json()) as any).result).toHaveLength(12 * 1024);
  }, 60_000);

  it("documents the body's time bounds, as configured, in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as any;
    expect(doc.paths['/api/v1/content/write'].post.responses['408'].description).toBe(
      `DEADLINE_EXCEEDED: the request body did not arrive within ${BODY_S} s (MUNINN_HTTP_BODY_TIMEOUT_S), plus 1 s per ${MIN_RATE} bytes it sent (MUNINN_HTTP_BODY_MIN_RATE); the connection is closed`,
    );
    expect(doc.paths['/api/v1/admin/accounts/{accountId}/import'].post.responses['408'].description).toBe(
      `DEADLINE_EXCEEDED: the body sent nothing for ${IDLE_S} s (MUNINN_IMPORT_IDLE_S); the import is removed; the connection is closed`,
    );
    // A route without a body has no body to wait for.
    expect(doc.paths['/api/v1/fs/ls'].get.responses['408']).toBeUndefined();
  });

  it('closes the connection after a refusal sent before the body was read, and keeps it for a complete request', async () => {
    // Refused unauthenticated (401) while the client still sends its body: the gateway does not stay to
    // read and discard it.
    const refused = await openRaw(port);
    refused.socket.write(
      'POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100000\r\n\r\n{"uri":"',
    );
    trickle(refused);
    expect(await refused.closed).toBeLessThan(5000);
    expect(refused.text()).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused.text()).toMatch(/\r\nconnection: close\r\n/i);

    // A declared length over the body limit: 413, and closed as well.
    const large = await openRaw(port);
    large.socket.write(
      'POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `X-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{`,
    );
    trickle(large);
    expect(await large.closed).toBeLessThan(5000);
    expect(large.text()).toMatch(/^HTTP\/1\.1 413 /);

    // Two complete requests on one connection: both answered on it (keep-alive as before).
    const kept = await openRaw(port);
    const req = (uri: string) => {
      const body = JSON.stringify({ uri, content: 'kept', mode: 'create' });
      return (
        'POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `X-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    kept.socket.write(req('viking://resources/kept.md'));
    await eventually(() => /\r\n\r\n\{.*\}$/s.test(kept.text()));
    // Idle past the response's send bound: that timer ended with the response, keep-alive's took over.
    await new Promise((r) => setTimeout(r, (SEND_IDLE_S + 1) * 1000));
    kept.socket.write(req('viking://resources/kept-2.md'));
    await eventually(() => (kept.text().match(/HTTP\/1\.1 200 /g) ?? []).length === 2);
    expect(kept.text()).not.toMatch(/connection: close/i);
    expect(kept.socket.destroyed).toBe(false);
    kept.socket.destroy();
  }, 60_000);

  it("abandons a response its client stops reading after MUNINN_HTTP_SEND_IDLE_S, freeing the account's slots", async () => {
    // Larger than the kernel's socket buffers on both sides (a few MB each on loopback), so the response
    // cannot be handed off whole while its client reads nothing.
    const content = 'x'.repeat(40_000_000);
    const stored = await fetch(`${url}/api/v1/content/write`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ uri: 'viking://resources/large.md', content, mode: 'create' }),
    });
    expect(stored.status).toBe(200);
    // Two clients ask for the 40 MB file and read none of it: both of the account's slots are taken.
    // (No 'data' listener until they read: a paused socket with one still took in the whole response.)
    const stalled = [0, 1].map(() => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        'GET /api/v1/content/read?uri=viking://resources/large.md HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          `X-API-Key: ${key}\r\n\r\n`,
      );
      return { socket, closed: new Promise<void>((r) => socket.once('close', () => r())) };
    });
    // The account's requests are served again once a stalled response is abandoned (without the bound each
    // waited out its line and was refused 429, for as long as the stalled clients stayed).
    const ls = () => fetch(`${url}/api/v1/fs/ls?uri=viking://resources`, { headers: { 'x-api-key': key } });
    await eventually(async () => (await ls()).status === 200, 45_000);
    // The second response is read from the store after the first, so it may have begun much later on a busy
    // machine (once in CI it had not yet been abandoned 15 s after the first): wait until the gateway holds
    // no slot for either. Read then, each stalled client finds its response cut short: the gateway closed it.
    const running = async () =>
      Number(/^muninn_lane_requests\{lane="inflight",state="running"\} (\d+)$/m.exec(await metrics())?.[1] ?? NaN);
    await eventually(async () => (await running()) === 0, 90_000);
    const received = stalled.map(({ socket }) => {
      let text = '';
      socket.on('data', (d) => (text += d));
      return () => text;
    });
    await Promise.all(stalled.map((raw) => raw.closed));
    for (const text of received) {
      expect(text()).toMatch(/^HTTP\/1\.1 200 /);
      const declared = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(text())?.[1]);
      expect(declared).toBeGreaterThanOrEqual(content.length);
      expect(text().length - text().indexOf('\r\n\r\n') - 4).toBeLessThan(declared);
    }
    // 21 s alone; past 60 s once in CI beside another suite (storing and serving 40 MB on two shared cores).
  }, 180_000);

  it('abandons an MCP answer its client stops reading after MUNINN_HTTP_SEND_IDLE_S (the transport writes it itself)', async () => {
    const stored = await fetch(`${url}/api/v1/content/write`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ uri: 'viking://resources/mcp-large.md', content: 'y'.repeat(600_000), mode: 'create' }),
    });
    expect(stored.status).toBe(200);
    // 16 reads of 500,000 characters (MUNINN_MCP_READ_MAX_CHARS), each twice in its answer: 16 MB, more than the
    // kernel's buffers hold while the client reads nothing (no 'data' listener until it reads).
    const read = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'read', arguments: { uris: 'viking://resources/mcp-large.md' } },
    });
    const body = JSON.stringify(Array.from({ length: 16 }, (_, i) => read(i + 1)));
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    // Sent chunked, so it holds one of the account's large-body slots (its length undeclared) while it lasts:
    // the gateway's hold on the stalled answer is visible on /metrics.
    socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Accept: application/json, text/event-stream\r\nX-API-Key: ${key}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    const largeBodies = async () =>
      Number(/^muninn_lane_requests\{lane="large_bodies",state="running"\} (\d+)$/m.exec(await metrics())?.[1] ?? NaN);
    await eventually(async () => (await largeBodies()) === 1, 30_000);
    // Without the bound the answer stayed in the gateway, and the slot taken, for as long as the client stayed.
    await eventually(async () => (await largeBodies()) === 0, 60_000);
    let text = '';
    socket.on('data', (d) => (text += d));
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.split('event: message').length - 1).toBeLessThan(16);
  }, 120_000);

  it('answers headers not in within MUNINN_HTTP_HEADERS_TIMEOUT_S with a 408', async () => {
    const raw = await openRaw(port);
    raw.socket.write('GET /api/v1/fs/ls?uri=viking://resources HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const timer = setInterval(() => !raw.socket.destroyed && raw.socket.write('X-Slow: a\r\n'), 300);
    const ms = await raw.closed;
    clearInterval(timer);
    // Node's default was 60 s, checked every 30 s: a slow header block held its connection 81 s.
    expect(ms).toBeGreaterThanOrEqual(HEADERS_S * 1000 - 100);
    expect(ms).toBeLessThan((HEADERS_S + 5) * 1000);
    expect(raw.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect(envelopeOf(raw.text()).error.code).toBe('DEADLINE_EXCEEDED');
    expect(await metrics()).toMatch(/^muninn_refusals_total\{limit="headers_timeout",status="408"\} 1$/m);
  }, 60_000);

  it("ends an import whose body goes quiet for MUNINN_IMPORT_IDLE_S, removes its account and frees the gateway's import slot", async () => {
    const lines = [
      { type: 'account', format: 1, users: [{ user_id: 'u1', role: 'admin' }], limits: {} },
      {
        type: 'node',
        uri: 'viking://resources/quiet.md',
        kind: 'file',
        tags: [],
        created_at: '2026-12-01T00:00:00.000Z',
        updated_at: '2026-12-01T00:00:00.000Z',
        content: 'sent, then nothing more',
      },
    ];
    const ndjson = (ls: unknown[]) => ls.map((l) => JSON.stringify(l)).join('\n') + '\n';
    // A restore script that sends two lines and hangs with its connection open.
    const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: any }>((resolve, reject) => {
      const req = httpRequest(
        `${url}/api/v1/admin/accounts/quiet/import`,
        { method: 'POST', headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(ndjson(lines));
    });
    // While it hangs it holds the gateway's one import slot (MUNINN_IMPORT_MAX_CONCURRENT 1).
    await eventually(async () => (await root('GET', '/api/v1/admin/accounts/quiet')).status === 200);
    const busy = await fetch(`${url}/api/v1/admin/accounts/other/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
      body: ndjson(lines),
    });
    expect(busy.status).toBe(429);

    const started = Date.now();
    const ended = await answer;
    expect(Date.now() - started).toBeLessThan((IDLE_S + 5) * 1000);
    expect(ended.status).toBe(408);
    expect(ended.headers.connection).toBe('close');
    expect(ended.body.error).toEqual({
      code: 'DEADLINE_EXCEEDED',
      message: `The import's body sent nothing for ${IDLE_S} s (MUNINN_IMPORT_IDLE_S)`,
      details: { field: 'body', limit: 'import_idle', idle_s: IDLE_S, line: 2 },
    });
    // Removed whole, the trail saying why, and the slot free: the same id imports at once.
    expect((await root('GET', '/api/v1/admin/accounts/quiet')).status).toBe(404);
    const trail = ((await (await root('GET', '/api/v1/admin/accounts/quiet/audit')).json()) as any).result.events;
    expect(trail[0]).toMatchObject({
      action: 'account.delete',
      details: { reason: expect.stringMatching(/^import failed: The import's body sent nothing/) },
    });
    const again = await fetch(`${url}/api/v1/admin/accounts/quiet/import`, {
      method: 'POST',
      headers: { 'x-api-key': ROOT, 'content-type': 'application/x-ndjson' },
      body: ndjson([...lines, { type: 'end', nodes: 1, sessions: 0, archives: 0, messages: 0 }]),
    });
    expect(again.status).toBe(200);
    expect(await metrics()).toMatch(/^muninn_refusals_total\{limit="import_idle",status="408"\} 1$/m);
  }, 60_000);

  it('closes connections beyond MUNINN_HTTP_MAX_CONNECTIONS as they arrive, and serves again once they go', async () => {
    const opened: Raw[] = [];
    for (let i = 0; i < MAX_CONNECTIONS + 6; i++) opened.push(await openRaw(port));
    await new Promise((r) => setTimeout(r, 500));
    const open = opened.filter((r) => !r.socket.destroyed && !r.socket.readableEnded);
    // Connections the test's own HTTP client keeps alive count too, so at most the bound stays open.
    expect(open.length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(open.length).toBeGreaterThan(MAX_CONNECTIONS - 8);
    const dropped = opened.length - open.length;
    for (const r of opened) r.socket.destroy();
    await eventually(async () => (await fetch(`${url}/health`).catch(() => null))?.status === 200, {
      ms: 10_000,
      retryErrors: true,
    });
    const counted = Number(/^muninn_http_connections_dropped_total (\d+)$/m.exec(await metrics())?.[1]);
    expect(counted).toBeGreaterThanOrEqual(dropped);
  }, 60_000);

  it("holds fewer connections than configured where the process's open-file limit cannot hold them", async () => {
    // 300 descriptors, 256 of them left for the store, Redis and files: at most 44 connections, not 10,000.
    const lowPort = await freePort();
    const lowDir = mkdtempSync(join(tmpdir(), 'muninn-slow-fd-'));
    const low = startAppProcess(
      'standalone',
      {
        PORT: String(lowPort),
        HOST: '127.0.0.1',
        MUNINN_DATA_DIR: lowDir,
        REDIS_URL: process.env.REDIS_URL ?? '',
        MUNINN_QUEUE_PREFIX: `slow-fd-${lowPort}`,
        MUNINN_ROOT_API_KEY: ROOT,
      },
      ['prlimit', '--nofile=300:300'],
    );
    try {
      await waitHealthy(`http://127.0.0.1:${lowPort}`);
      expect(low.output()).toMatch(
        /MUNINN_HTTP_MAX_CONNECTIONS 10000 does not fit this process's open-file limit \(300\) beside 256 other descriptors: holding at most 44 connections/,
      );
      const opened: Raw[] = [];
      for (let i = 0; i < 60; i++) opened.push(await openRaw(lowPort));
      await new Promise((r) => setTimeout(r, 500));
      const open = opened.filter((r) => !r.socket.destroyed && !r.socket.readableEnded);
      expect(open.length).toBeLessThanOrEqual(44);
      expect(open.length).toBeGreaterThan(30);
      for (const r of opened) r.socket.destroy();
      // The process kept its descriptors for the store and Redis: it still serves.
      await eventually(
        async () => (await fetch(`http://127.0.0.1:${lowPort}/health`).catch(() => null))?.status === 200,
        {
          ms: 10_000,
          retryErrors: true,
        },
      );
    } finally {
      await low.kill('SIGKILL');
      rmSync(lowDir, { recursive: true, force: true });
    }
  }, 120_000);
});

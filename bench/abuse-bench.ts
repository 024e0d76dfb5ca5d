/**
 * `npm run bench:abuse`: what hostile tenants cost everyone else, on a freshly built standalone process
 * (`dist/`, embedded PGlite, api_key mode, default limits).
 *
 * Phases (BENCH_ABUSE_SECONDS each, default 10):
 * 1. solo: tenant B asks context questions at a steady BENCH_ABUSE_B_RATE per second (default 20).
 * 2. hostile: tenant A sends the issue's hostile requests (60 KB and ~1 MB queries, a 3,000-segment
 *    URI, a back-reference regex, a filter nested 1,000 deep, 20,000 target URIs, NUL content, MCP
 *    batches of 100 searches, an unauthenticated 7 MB body) on 8 connections.
 * 3. flood: tenant A floods valid context searches (REST, and MCP batches of 16) on 32 connections,
 *    while B repeats its solo load.
 * 4. slow: tenant C (fresh limits) opens BENCH_ABUSE_SLOW connections (default 1,500) that send one byte
 *    every 2 s: a third trickle a body without a key (refused 401 before it is read), a third trickle a body
 *    with C's key, a third trickle their headers; B repeats its solo load. Printed: how many of C's connections the
 *    gateway still holds at the phase's end and once the body timeout has passed (docs/limits-and-security.md,
 *    "Slow clients").
 * Throughout, a probe asks `GET /health` every 50 ms; the gateway's event-loop delay comes from
 * `/metrics` (its percentiles cover the time since the previous scrape, so each phase starts with one).
 * Printed: /health latency and event-loop delay per phase, B's p50/p99 solo and during the flood, and
 * the ratios. Targets (issue 11): /health never above 500 ms; B's p99 during the flood within 3x solo.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { connect, Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitHealthy } from '@app/testing';

const SECONDS = Number(process.env.BENCH_ABUSE_SECONDS ?? 10);
const SLOW = Number(process.env.BENCH_ABUSE_SLOW ?? 1500);
/** The gateway's body timeout in this run (its default unless MUNINN_HTTP_BODY_TIMEOUT_S is set). */
const BODY_TIMEOUT_S = Number(process.env.MUNINN_HTTP_BODY_TIMEOUT_S ?? 60);
const B_RATE = Number(process.env.BENCH_ABUSE_B_RATE ?? 20);
const ROOT = 'bench-abuse-root-key-0123456789';
const TOPICS =
  'harbor lantern copper meadow quartz violet ember thunder saffron glacier orchard canyon falcon river'.split(' ');

interface Probe {
  stop(): Promise<number[]>;
}

// The probe runs in its own process: the load generators in this one would otherwise delay its timers.
const PROBE = `
const times = [];
let running = true;
process.on('SIGTERM', () => { running = false; });
(async () => {
  while (running) {
    const t0 = performance.now();
    await fetch(process.argv[1] + '/health').then((r) => r.arrayBuffer()).catch(() => undefined);
    times.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 50));
  }
  process.stdout.write(JSON.stringify(times));
})();
`;

/** Asks /health every 50 ms (one at a time, from a separate process) and records each latency in ms. */
function probeHealth(url: string): Probe {
  const child = spawn(process.execPath, ['-e', PROBE, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const done = new Promise<void>((r) => child.once('exit', () => r()));
  return { stop: async () => (child.kill('SIGTERM'), await done, JSON.parse(out || '[]') as number[]) };
}

async function eventLoopDelay(url: string): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: read('nodejs_eventloop_lag_p99_seconds'), max: read('nodejs_eventloop_lag_max_seconds') };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

async function api(url: string, path: string, key: string | null, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

function tenantB(url: string, key: string) {
  let i = 0;
  return autocannon({
    url: `${url}/api/v1/search/search`,
    method: 'POST',
    connections: 4,
    overallRate: B_RATE,
    duration: SECONDS,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ query: `what about the ${TOPICS[i++ % TOPICS.length]}?`, mode: 'context' }),
        }),
      },
    ],
  });
}

function hostileBodies(): { path: string; body: string; key: 'A' | 'none' }[] {
  const deep = (n: number) => `viking://resources/${Array.from({ length: n }, (_, i) => `d${i}`).join('/')}`;
  let nested: unknown = { op: 'must', field: 'uri', conds: ['viking://x'] };
  for (let i = 0; i < 1000; i++) nested = { op: 'or', conds: [nested] };
  const search = (n: number) =>
    Array.from({ length: n }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'lantern harbor', mode: 'context' } },
    }));
  return [
    { path: '/api/v1/search/find', body: JSON.stringify({ query: 'x'.repeat(60_000) }), key: 'A' },
    {
      path: '/api/v1/search/search',
      body: JSON.stringify({ query: 'word '.repeat(200_000), mode: 'context' }),
      key: 'A',
    },
    {
      path: '/api/v1/content/write',
      body: JSON.stringify({ uri: deep(3000), content: 'x', mode: 'create' }),
      key: 'A',
    },
    {
      path: '/api/v1/search/find',
      body: JSON.stringify({
        query: 'q',
        filter: { op: 'regex', field: 'abstract', pattern: '^(.*)(.*)(.*)\\3\\2\\1$' },
      }),
      key: 'A',
    },
    { path: '/api/v1/search/find', body: JSON.stringify({ query: 'q', filter: nested }), key: 'A' },
    {
      path: '/api/v1/search/find',
      body: JSON.stringify({
        query: 'q',
        target_uri: Array.from({ length: 20_000 }, (_, i) => `viking://resources/t${i}`),
      }),
      key: 'A',
    },
    {
      path: '/api/v1/content/write',
      body: JSON.stringify({ uri: 'viking://resources/nul.md', content: 'a\u0000b', mode: 'create' }),
      key: 'A',
    },
    { path: '/mcp', body: JSON.stringify(search(100)), key: 'A' },
    { path: '/api/v1/content/write', body: '{'.repeat(7 * 1024 * 1024), key: 'none' },
  ];
}

function hostile(url: string, keyA: string) {
  const reqs = hostileBodies().map((h) => ({
    method: 'POST' as const,
    path: h.path,
    body: h.body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(h.key === 'A' ? { 'x-api-key': keyA } : {}),
    },
  }));
  return autocannon({ url, connections: 8, duration: SECONDS, timeout: 60, requests: reqs });
}

function flood(url: string, keyA: string) {
  const batch = Array.from({ length: 16 }, (_, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'search', arguments: { query: 'lantern harbor meadow', mode: 'context' } },
  }));
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-api-key': keyA,
  };
  return autocannon({
    url,
    connections: 32,
    duration: SECONDS,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/search/search',
        headers,
        body: JSON.stringify({ query: 'copper quartz ember', mode: 'context' }),
      },
      { method: 'POST', path: '/mcp', headers, body: JSON.stringify(batch) },
    ],
  });
}

type SlowKind = 'unauthenticated body' | 'body with a key' | 'headers';

/** A tenant's slow connections: each sends one byte every 2 s for as long as the gateway keeps it open. */
async function slowClients(port: number, key: string) {
  const kinds: SlowKind[] = ['unauthenticated body', 'body with a key', 'headers'];
  const open: { kind: SlowKind; socket: Socket }[] = [];
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < SLOW; i++) {
    const kind = kinds[i % 3];
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    const head = `POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
    socket.write(
      kind === 'headers'
        ? head
        : `${head}${kind === 'body with a key' ? `X-API-Key: ${key}\r\n` : ''}` +
            `Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"uri":"`,
    );
    const byte = kind === 'headers' ? 'X-Slow: a\r\n' : 'a';
    timers.push(setInterval(() => !socket.destroyed && socket.write(byte), 2000));
    open.push({ kind, socket });
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 20));
  }
  const held = () =>
    Object.fromEntries(
      kinds.map((k) => [k, open.filter((o) => o.kind === k && !o.socket.destroyed && !o.socket.readableEnded).length]),
    ) as Record<SlowKind, number>;
  const stop = () => {
    for (const t of timers) clearInterval(t);
    for (const o of open) o.socket.destroy();
  };
  return { held, stop };
}

async function phase<T>(url: string, name: string, run: () => Promise<T>) {
  await eventLoopDelay(url); // resets the percentiles
  const probe = probeHealth(url);
  const result = await run();
  const health = await probe.stop();
  const loop = await eventLoopDelay(url);
  return {
    name,
    result,
    health: { p50: pct(health, 50), p99: pct(health, 99), max: Math.max(...health), n: health.length },
    loop,
  };
}

async function main() {
  console.log('building dist/ (standalone) …');
  execFileSync('npx', ['nest', 'build', 'standalone'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-abuse-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['dist/apps/standalone/src/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      MUNINN_ROOT_API_KEY: ROOT,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      MUNINN_QUEUE_PREFIX: `bench-abuse-${port}`,
      MUNINN_DATA_DIR: dataDir,
      // Limits to try (MUNINN_ACCOUNT_MAX_INFLIGHT=4, MUNINN_HTTP_BODY_TIMEOUT_S=10 npm run bench:abuse …) pass through.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^MUNINN_(ACCOUNT|RATE|HTTP)_/.test(k))),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The server's own log (stderr) is kept to its last lines, printed only if the bench fails.
  let serverLog = '';
  child.stderr?.on('data', (d) => (serverLog = (serverLog + d).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await waitHealthy(url, 120_000);
    const keys: Record<string, string> = {};
    for (const t of ['a', 'b', 'c'])
      keys[t] = (
        await api(url, '/api/v1/admin/accounts', ROOT, { account_id: `tenant-${t}`, admin_user_id: 'agent' })
      ).body.result.user_key;
    for (const t of ['a', 'b']) {
      const operations = Array.from({ length: 60 }, (_, i) => ({
        uri: `viking://user/agent/memories/entities/n${i}.md`,
        content: `Note ${i}: the ${TOPICS[i % TOPICS.length]} by the ${TOPICS[(i * 5) % TOPICS.length]} was seen on day ${i}.`,
        mode: 'create',
      }));
      const r = await api(url, '/api/v1/content/batch-write', keys[t], {
        root_uri: 'viking://user/agent/memories/entities',
        operations,
        wait: true,
        timeout: 120,
      });
      if (r.status !== 200) throw new Error(`seeding tenant ${t}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    const solo = await phase(url, 'B solo', () => tenantB(url, keys.b));
    const bad = await phase(url, 'A hostile', () => hostile(url, keys.a));
    const flooded = await phase(url, 'A flood + B', () => Promise.all([flood(url, keys.a), tenantB(url, keys.b)]));
    const [floodA, soloDuringFlood] = flooded.result;
    const slowC = await slowClients(port, keys.c);
    const slowed = await phase(url, 'C slow + B', () => tenantB(url, keys.b));
    const heldAtEnd = slowC.held();
    await new Promise((r) => setTimeout(r, (BODY_TIMEOUT_S + 5) * 1000 - SECONDS * 1000));
    const heldAfter = slowC.held();
    slowC.stop();

    console.log('\nphase          /health p50   p99    max ms (n)      event loop p99   max ms');
    for (const p of [solo, bad, flooded, slowed]) {
      console.log(
        `${p.name.padEnd(14)} ${p.health.p50.toFixed(1).padStart(8)} ${p.health.p99.toFixed(1).padStart(6)} ${p.health.max.toFixed(1).padStart(7)} (${p.health.n})` +
          `${p.loop.p99.toFixed(1).padStart(16)} ${p.loop.max.toFixed(1).padStart(8)}`,
      );
    }
    const codes = (r: autocannon.Result) =>
      `2xx ${r['2xx']}, 4xx ${r['4xx']}, 5xx ${r['5xx']}, errors ${r.errors}, timeouts ${r.timeouts}`;
    console.log(`\nA hostile: ${bad.result.requests.total} requests (${codes(bad.result)})`);
    console.log(`A flood:   ${floodA.requests.total} requests (${codes(floodA)})`);
    const b0 = solo.result.latency;
    const b1 = soloDuringFlood.latency;
    console.log(`B solo:       p50 ${b0.p50} ms  p99 ${b0.p99} ms  (${codes(solo.result)})`);
    console.log(`B with flood: p50 ${b1.p50} ms  p99 ${b1.p99} ms  (${codes(soloDuringFlood)})`);
    console.log(
      `ratios (flood / solo): p50 ${(b1.p50 / b0.p50).toFixed(2)}x  p99 ${(b1.p99 / b0.p99).toFixed(2)}x   (target p99 ≤ 3x)`,
    );
    const b2 = slowed.result.latency;
    console.log(`B with slow:  p50 ${b2.p50} ms  p99 ${b2.p99} ms  (${codes(slowed.result)})`);
    const show = (h: Record<string, number>) =>
      Object.entries(h)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
    console.log(`C's ${SLOW} slow connections still held at the phase's end (${SECONDS} s): ${show(heldAtEnd)}`);
    console.log(`  … and ${BODY_TIMEOUT_S + 5} s after they opened: ${show(heldAfter)}`);
    const worst = Math.max(solo.health.max, bad.health.max, flooded.health.max, slowed.health.max);
    console.log(`/health worst ${worst.toFixed(0)} ms (target ≤ 500 ms)`);
  } catch (err) {
    console.error(`server log (tail):\n${serverLog}`);
    throw err;
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});

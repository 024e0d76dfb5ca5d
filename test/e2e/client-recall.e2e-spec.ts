// The agent-plugin recall client (docs/contract.md#agent-plugin-client, over real HTTP): against a real Muninn, and
// against a node:http server imitating an older server (no context face, then no /recall either).
// Also the `muninn recall` CLI end to end.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CONTEXT_HEADER, CONTEXT_TAG, LEGACY_MARKER_FILE, loadRecallConfig, RecallClient } from '@app/client';
import { startTestApp, TestApp } from '@app/testing';

const ROOT = resolve(__dirname, '../..');
const HEARTH = 'viking://user/default/memories/entities/hearth-otter.md';

function recallClient(url: string, stateDir: string, env: Record<string, string> = {}): RecallClient {
  const config = loadRecallConfig({ env: { HOME: stateDir, MUNINN_URL: url, MUNINN_STATE_DIR: stateDir, ...env } });
  return new RecallClient({ config });
}

describe('recall client against a real Muninn', () => {
  let app: TestApp;
  let stateDir: string;

  beforeAll(async () => {
    app = await startTestApp();
    const w = await app.request('POST', '/api/v1/content/write', {
      body: {
        uri: HEARTH,
        content: 'Hearth the otter lives under the mill bridge and steals trout from the weir.',
        mode: 'create',
        wait: true,
      },
    });
    expect(w.status).toBe(200);
  });
  afterAll(() => app.close());
  beforeEach(() => (stateDir = mkdtempSync(join(tmpdir(), 'muninn-recall-state-'))));
  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

  it('answers from the context face: the same entries as POST /search with the body it sends', async () => {
    const r = await recallClient(app.url, stateDir).recall({ query: 'otter under the mill bridge' });
    expect(r.source).toBe('context');
    expect(r.trace).toEqual(['POST /api/v1/search/search → 200']);
    expect(r.entries.map((e) => e.uri)).toContain(HEARTH);
    expect(r.stats?.purpose).toBe('coding');
    expect(r.stats?.score_threshold).toBe(0.35);
    const direct = await app.request('POST', '/api/v1/search/search', {
      body: {
        query: 'otter under the mill bridge',
        mode: 'context',
        purpose: 'coding',
        score_threshold: 0.35,
        rewrite: 'auto',
      },
    });
    expect(r.entries).toEqual(direct.body.result.entries);
    expect(r.injection).toBe(`<${CONTEXT_TAG}>\n${CONTEXT_HEADER}\n${direct.body.result.rendered}\n</${CONTEXT_TAG}>`);
    expect(existsSync(join(stateDir, LEGACY_MARKER_FILE))).toBe(false);
  });

  it('a session turn carries session_id and dedup_turns 5: the next turn does not serve the same entry again', async () => {
    const session = await app.request('POST', '/api/v1/sessions', { body: {} });
    const sessionId = session.body.result.session_id as string;
    const c = recallClient(app.url, stateDir, { OPENVIKING_RECALL_QUERY_EXPANSION: 'off' });
    const first = await c.recall({ query: 'otter under the mill bridge', sessionId });
    expect(first.entries.map((e) => e.uri)).toContain(HEARTH);
    expect(first.stats?.dedup.turns).toBe(5);
    const second = await c.recall({ query: 'otter under the mill bridge', sessionId });
    expect(second.entries.map((e) => e.uri)).not.toContain(HEARTH);
    expect(second.stats?.dedup.cooled).toBeGreaterThanOrEqual(1);
  });

  it('with a fresh legacy marker it calls only /recall, which Muninn still serves', async () => {
    writeFileSync(join(stateDir, LEGACY_MARKER_FILE), JSON.stringify({ legacyUntil: Date.now() + 60_000 }));
    const r = await recallClient(app.url, stateDir).recall({ query: 'otter under the mill bridge' });
    expect(r.source).toBe('recall');
    expect(r.trace).toEqual(['legacy marker fresh: context face skipped', 'POST /api/v1/search/recall → 200']);
    expect(r.entries.map((e) => e.uri)).toContain(HEARTH);
    expect(r.stats?.deprecated?.endpoint).toBe('/api/v1/search/recall');
  });

  it('an expired marker is ignored', async () => {
    writeFileSync(join(stateDir, LEGACY_MARKER_FILE), JSON.stringify({ legacyUntil: Date.now() - 1 }));
    expect((await recallClient(app.url, stateDir).recall({ query: 'otter under the mill bridge' })).source).toBe(
      'context',
    );
  });

  it('npx muninn recall "query" prints the injected block; a bad config key exits 2 naming it', async () => {
    const run = promisify(execFile);
    const env = { PATH: process.env.PATH ?? '', HOME: stateDir, MUNINN_URL: app.url, MUNINN_STATE_DIR: stateDir };
    const out = await run(
      process.execPath,
      [join(ROOT, 'libs/client/bin/muninn.js'), 'recall', 'otter under the mill bridge'],
      { cwd: ROOT, env, timeout: 120_000 },
    );
    expect(out.stdout).toContain(`<${CONTEXT_TAG}>\n${CONTEXT_HEADER}\n<memory uri="${HEARTH}"`);
    const json = await run(
      process.execPath,
      [join(ROOT, 'libs/client/bin/muninn.js'), 'recall', '--json', 'otter', 'mill', 'bridge'],
      { cwd: ROOT, env },
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ source: 'context', trace: ['POST /api/v1/search/search → 200'] });
    const configFile = join(stateDir, 'client.json');
    writeFileSync(configFile, JSON.stringify({ plugin: { recallLimt: 3 } }));
    const bad = await run(
      process.execPath,
      [join(ROOT, 'libs/client/bin/muninn.js'), 'recall', '--config', configFile, 'otter'],
      { cwd: ROOT, env },
    ).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `config file ${configFile}: unknown key "plugin.recallLimt" (did you mean "plugin.recallLimit"?)`,
    );
  });
});

interface Seen {
  path: string;
  body: any;
}

/** A server of an older generation: scripted answers per path, every request recorded. */
async function olderServer(
  routes: Record<string, (body: any) => [number, unknown]>,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const body = raw ? JSON.parse(raw) : null;
      seen.push({ path, body });
      const route = routes[path];
      const [status, json] = route ? route(body) : [404, { detail: 'Not Found' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

const V1_RESULT = {
  status: 'ok',
  result: {
    entries: [
      {
        uri: 'viking://user/u/memories/events/kiln.md',
        category: 'events',
        score: 0.7,
        detail: 'abstract',
        text: 'Fired the kiln on Tuesday.',
        origin: 'self',
      },
    ],
    rendered:
      '<memory uri="viking://user/u/memories/events/kiln.md" type="events" score="0.70" detail="abstract">\nFired the kiln on Tuesday.\n</memory>',
    digest: '',
    stats: { rewrite: 'off' },
  },
};

describe('recall client against an older server (node:http)', () => {
  let stateDir: string;
  beforeEach(() => (stateDir = mkdtempSync(join(tmpdir(), 'muninn-recall-old-'))));
  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

  it('400 "Extra inputs: mode" on context → /recall and the marker; the next turn calls only /recall', async () => {
    const old = await olderServer({
      '/api/v1/search/search': () => [400, { error: { message: 'Extra inputs: mode' } }],
      '/api/v1/search/recall': () => [200, V1_RESULT],
    });
    try {
      const c = recallClient(old.url, stateDir);
      const first = await c.recall({ query: 'when was the kiln fired' });
      expect(old.seen.map((s) => s.path)).toEqual(['/api/v1/search/search', '/api/v1/search/recall']);
      expect(old.seen[0].body).toMatchObject({ mode: 'context', purpose: 'coding', score_threshold: 0.35 });
      expect(old.seen[1].body).toEqual({
        query: 'when was the kiln fired',
        quotas: { events: 5, entities: 4, preferences: 1, experiences: 0 },
        max_chars: 5000,
        min_score: 0.35,
        render: true,
      });
      expect(first.source).toBe('recall');
      expect(first.injection).toContain('Fired the kiln on Tuesday.');
      const marker = JSON.parse(readFileSync(join(stateDir, LEGACY_MARKER_FILE), 'utf8'));
      expect(marker.legacyUntil).toBeGreaterThan(Date.now() + 6 * 3600_000 - 60_000);
      old.seen.length = 0;
      const second = await c.recall({ query: 'when was the kiln fired' });
      expect(old.seen.map((s) => s.path)).toEqual(['/api/v1/search/recall']);
      expect(second.source).toBe('recall');
    } finally {
      await old.close();
    }
  });

  it('400 "bad query" does not write the marker', async () => {
    const old = await olderServer({
      '/api/v1/search/search': () => [400, { error: { message: 'bad query' } }],
      '/api/v1/search/recall': () => [200, V1_RESULT],
    });
    try {
      const r = await recallClient(old.url, stateDir).recall({ query: 'when was the kiln fired' });
      expect(r.source).toBe('recall');
      expect(existsSync(join(stateDir, LEGACY_MARKER_FILE))).toBe(false);
    } finally {
      await old.close();
    }
  });

  it('503 on context and 404 on /recall → client-side assembly from /find', async () => {
    const old = await olderServer({
      '/api/v1/search/search': () => [503, { error: { message: 'UNAVAILABLE' } }],
      '/api/v1/search/find': (body) => [
        200,
        {
          status: 'ok',
          result:
            body.target_uri === 'viking://~/memories'
              ? {
                  memories: [
                    {
                      context_type: 'memory',
                      uri: 'viking://user/u/memories/events/kiln.md',
                      level: 2,
                      score: 0.66,
                      abstract: 'Fired the kiln on Tuesday.',
                      tags: [],
                    },
                  ],
                  resources: [],
                  skills: [],
                  total: 1,
                }
              : { memories: [], resources: [], skills: [], total: 0 },
        },
      ],
    });
    try {
      const r = await recallClient(old.url, stateDir).recall({ query: 'when was the kiln fired' });
      expect(old.seen.map((s) => s.path)).toEqual([
        '/api/v1/search/search',
        '/api/v1/search/recall',
        '/api/v1/search/find',
        '/api/v1/search/find',
      ]);
      expect(
        old.seen
          .slice(2)
          .map((s) => s.body.target_uri)
          .sort(),
      ).toEqual(['viking://~/memories', 'viking://~/skills']);
      expect(r.source).toBe('find');
      expect(r.injection).toContain(
        '<memory uri="viking://user/u/memories/events/kiln.md" type="events" score="0.66" detail="abstract">\nFired the kiln on Tuesday.\n</memory>',
      );
      expect(existsSync(join(stateDir, LEGACY_MARKER_FILE))).toBe(false);
    } finally {
      await old.close();
    }
  });
});

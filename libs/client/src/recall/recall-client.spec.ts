// docs/contract.md#fallback-chain at unit level (the HTTP layer is a scripted fetch): the fallback chain
// context → /recall → /find, the legacy marker, and what gets injected.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEGACY_MARKER_FILE, LEGACY_MARKER_TTL_MS } from './legacy-marker';
import { loadRecallConfig } from './recall-config';
import { CONTEXT_HEADER, CONTEXT_TAG, looksLikeUnknownField, RecallClient } from './recall-client';

type Route = (body: any) => { status: number; json: unknown };

const ENTRY = {
  uri: 'viking://user/u/memories/entities/heron.md',
  category: 'entities',
  score: 0.8,
  detail: 'abstract',
  text: 'Heron keeps the lighthouse.',
  origin: 'self',
};
const RENDERED = `<memory uri="${ENTRY.uri}" type="entities" score="0.80" detail="abstract">\n${ENTRY.text}\n</memory>`;
const ok = (stats: Record<string, unknown> = { rewrite: 'off' }, digest = '') => ({
  status: 200,
  json: { status: 'ok', result: { entries: [ENTRY], rendered: RENDERED, digest, stats } },
});
const hit = (uri: string, score: number, abstract: string) => ({
  context_type: 'memory',
  uri,
  level: 2,
  score,
  abstract,
  tags: [],
});

describe('recall client fallback chain (unit)', () => {
  let stateDir: string;
  let calls: { path: string; body: any }[];
  let now: number;

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'muninn-state-'));
    calls = [];
    now = 1_700_000_000_000;
  });
  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

  function client(
    routes: Record<string, Route>,
    extra: Record<string, string> = {},
    runCompressor?: (p: string) => Promise<string>,
  ) {
    const config = loadRecallConfig({
      env: { HOME: '/nonexistent-muninn-home', OPENVIKING_STATE_DIR: stateDir, ...extra },
    });
    const fetch = async (req: Request) => {
      const path = new URL(req.url).pathname;
      const body = JSON.parse(await req.text());
      calls.push({ path, body });
      const route = routes[path];
      const r = route ? route(body) : { status: 404, json: { detail: 'Not Found' } };
      return new Response(JSON.stringify(r.json), {
        status: r.status,
        headers: { 'content-type': 'application/json' },
      });
    };
    return new RecallClient({ config, fetch, runCompressor, now: () => now });
  }
  const paths = () => calls.map((c) => c.path.replace('/api/v1/search/', ''));
  const markerPath = () => join(stateDir, LEGACY_MARKER_FILE);

  it('the context face answers: one call, rendered block wrapped for injection, no marker', async () => {
    const r = await client({ '/api/v1/search/search': () => ok() }).recall({ query: 'heron lighthouse' });
    expect(paths()).toEqual(['search']);
    expect(calls[0].body).toMatchObject({ mode: 'context', purpose: 'coding', score_threshold: 0.35, rewrite: 'auto' });
    expect(r.source).toBe('context');
    expect(r.injection).toBe(`<${CONTEXT_TAG}>\n${CONTEXT_HEADER}\n${RENDERED}\n</${CONTEXT_TAG}>`);
    expect(existsSync(markerPath())).toBe(false);
  });

  it('400 "Extra inputs: mode" → /recall and the marker; the next turn calls only /recall; after 6 h the context face again', async () => {
    const routes: Record<string, Route> = {
      '/api/v1/search/search': () => ({ status: 400, json: { error: { message: 'Extra inputs: mode' } } }),
      '/api/v1/search/recall': () => ok(),
    };
    const c = client(routes);
    const first = await c.recall({ query: 'heron lighthouse' });
    expect([first.source, paths()]).toEqual(['recall', ['search', 'recall']]);
    expect(calls[1].body).toMatchObject({
      query: 'heron lighthouse',
      quotas: { events: 5, entities: 4, preferences: 1, experiences: 0 },
      max_chars: 5000,
      min_score: 0.35,
      render: true,
    });
    expect(JSON.parse(readFileSync(markerPath(), 'utf8'))).toEqual({ legacyUntil: now + LEGACY_MARKER_TTL_MS });
    calls = [];
    const second = await c.recall({ query: 'heron lighthouse' });
    expect([second.source, paths()]).toEqual(['recall', ['recall']]);
    now += LEGACY_MARKER_TTL_MS + 1;
    calls = [];
    await c.recall({ query: 'heron lighthouse' });
    expect(paths()).toEqual(['search', 'recall']);
  });

  it.each([
    ['400 "bad query"', 400, { error: { message: 'bad query' } }],
    ['503', 503, { error: { message: 'UNAVAILABLE: Redis' } }],
    ['500 mentioning mode', 500, { error: { message: 'mode exploded' } }],
  ])('%s does not write the marker', async (_name, status, json) => {
    const r = await client({
      '/api/v1/search/search': () => ({ status, json }),
      '/api/v1/search/recall': () => ok(),
    }).recall({ query: 'heron lighthouse' });
    expect(r.source).toBe('recall');
    expect(existsSync(markerPath())).toBe(false);
  });

  it('/search 503 + /recall 404 → client-side assembly from /find on ~/memories and ~/skills', async () => {
    const r = await client({
      '/api/v1/search/search': () => ({ status: 503, json: { error: { message: 'down' } } }),
      '/api/v1/search/find': (body) => ({
        status: 200,
        json: {
          status: 'ok',
          result:
            body.target_uri === 'viking://~/memories'
              ? {
                  memories: [
                    hit(ENTRY.uri, 0.6, ENTRY.text),
                    hit('viking://user/u/memories/profile.md', 0.9, 'profile'),
                  ],
                  resources: [],
                  skills: [],
                  total: 2,
                }
              : {
                  memories: [],
                  resources: [],
                  skills: [hit('viking://user/u/skills/lamp.md', 0.4, 'How to trim the lamp wick.')],
                  total: 1,
                },
        },
      }),
    }).recall({ query: 'heron lighthouse' });
    expect(paths()).toEqual(['search', 'recall', 'find', 'find']);
    expect(calls.slice(2).map((c) => c.body)).toEqual([
      { query: 'heron lighthouse', target_uri: 'viking://~/memories', limit: 20, score_threshold: 0 },
      { query: 'heron lighthouse', target_uri: 'viking://~/skills', limit: 20, score_threshold: 0 },
    ]);
    expect(r.source).toBe('find');
    expect(r.entries.map((e) => [e.uri, e.category])).toEqual([
      [ENTRY.uri, 'entities'],
      ['viking://user/u/skills/lamp.md', 'skills'],
    ]);
    expect(r.injection).toContain(`<memory uri="${ENTRY.uri}" type="entities" score="0.60" detail="abstract">`);
  });

  it('a 400 on /recall with peer_scope retries once without it', async () => {
    const r = await client(
      {
        '/api/v1/search/search': () => ({ status: 400, json: { error: { message: 'Extra inputs: mode' } } }),
        '/api/v1/search/recall': (body) =>
          body.peer_scope ? { status: 400, json: { detail: 'peer_scope: extra fields not permitted' } } : ok(),
      },
      { OPENVIKING_RECALL_PEER_SCOPE: 'actor' },
    ).recall({ query: 'heron lighthouse' });
    expect(paths()).toEqual(['search', 'recall', 'recall']);
    expect(calls[1].body.peer_scope).toBe('actor');
    expect(calls[2].body).not.toHaveProperty('peer_scope');
    expect(r.source).toBe('recall');
  });

  it('nothing answers → source none, nothing injected', async () => {
    const r = await client({}).recall({ query: 'heron lighthouse' });
    expect([r.source, r.injection]).toEqual(['none', '']);
  });

  it('a query shorter than minQueryLength makes no call', async () => {
    const r = await client({ '/api/v1/search/search': () => ok() }).recall({ query: 'hi' });
    expect([r.source, calls]).toEqual(['skipped', []]);
  });

  it.each([
    [
      'server digest wins over rendered',
      ok({ rewrite: 'ok' }, 'Memory digest:\n- Heron keeps the light source: ' + ENTRY.uri),
      'Memory digest:',
    ],
    ['no_relevant injects nothing', ok({ rewrite: 'no_relevant' }), ''],
  ])('%s', async (_name, answer, expected) => {
    const r = await client({ '/api/v1/search/search': () => answer }).recall({ query: 'heron lighthouse' });
    if (expected) expect(r.injection).toContain(expected);
    else expect(r.injection).toBe('');
  });

  it('with a host compressor: rewrite is not requested, the local digest replaces the block', async () => {
    const long = { ...ENTRY, text: 'Heron keeps the lighthouse. '.repeat(80) };
    const answer = {
      status: 200,
      json: {
        status: 'ok',
        result: {
          entries: [long],
          rendered: `<memory uri="${ENTRY.uri}">\n${long.text}\n</memory>`,
          digest: '',
          stats: { rewrite: 'off' },
        },
      },
    };
    const run = jest.fn(async () => `- Heron keeps the lighthouse source: ${ENTRY.uri}`);
    const r = await client({ '/api/v1/search/search': () => answer }, {}, run).recall({ query: 'heron lighthouse' });
    expect(calls[0].body).not.toHaveProperty('rewrite');
    expect(run).toHaveBeenCalledTimes(1);
    expect(r.injection).toBe(
      `<${CONTEXT_TAG}>\n${CONTEXT_HEADER}\nMemory digest:\n- Heron keeps the lighthouse source: ${ENTRY.uri}\n</${CONTEXT_TAG}>`,
    );
  });

  it.each([
    [400, { error: { message: 'Extra inputs: mode' } }, true],
    [422, { detail: [{ msg: 'Extra inputs are not permitted', loc: ['body', 'mode'] }] }, true],
    [400, { error: { message: 'unexpected keyword argument' } }, true],
    [400, { error: { message: 'bad query' } }, false],
    [503, { error: { message: 'Extra inputs: mode' } }, false],
  ])('looksLikeUnknownField(%i, %j) → %s', (status, body, expected) => {
    expect(looksLikeUnknownField(status, body)).toBe(expected);
  });
});

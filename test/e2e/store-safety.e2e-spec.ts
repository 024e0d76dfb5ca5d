import { loadConfig } from '@app/config';
import { startWorkerMetrics } from '@app/queue';
import { Db, STORE_DB } from '@app/store';
import { startTestApp, storeModes, TestApp } from '@app/testing';

// Regressions of the hostile-input findings in the store's area: filter fields read through the
// prototype chain, oversized or deep filters, super-linear regexes, listings that loaded every body,
// a store that blocked the HTTP event loop, and event-loop delay in /metrics.
const FIND = '/api/v1/search/find';
const SEARCH = '/api/v1/search/search';
const RUNAWAY = 'SELECT count(*) FROM generate_series(1, 5000000000) g WHERE g::text ~ $1';

const leaf = { op: 'must', field: 'uri', conds: ['viking://x'] };
const nested = (depth: number): unknown => {
  let node: unknown = leaf;
  for (let i = 0; i < depth; i++) node = { op: 'or', conds: [node] };
  return node;
};

describe.each(storeModes())('store safety over HTTP (store: %s)', (store) => {
  let app: TestApp;
  const find = (body: unknown) => app.request('POST', FIND, { body });
  const context = (body: Record<string, unknown>) =>
    app.request('POST', SEARCH, { body: { mode: 'context', ...body } });

  beforeAll(async () => {
    app = await startTestApp({ store, env: { MUNINN_STATEMENT_TIMEOUT_MS: '2000' } });
    const write = (uri: string, content: string) =>
      app.request('POST', '/api/v1/content/write', { body: { uri, content, mode: 'create', wait: true } });
    expect(
      (await write('viking://~/memories/preferences/coffee.md', '# Summary\nAlice drinks coffee every morning.'))
        .status,
    ).toBe(200);
    expect((await write('viking://resources/docs/grüße.md', 'Grüße aus Köln — 日本語')).status).toBe(200);
  }, 120000);

  afterAll(() => app.close());

  describe('filters', () => {
    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
      'a filter field named %s is a 400 on /find and in context mode',
      async (field) => {
        const filter = JSON.parse(`{"op":"must","field":${JSON.stringify(field)},"conds":["x"]}`);
        for (const r of [await find({ query: 'coffee', filter }), await context({ query: 'coffee', filter })]) {
          expect(r.status).toBe(400);
          expect(r.body.status).toBe('error');
          expect(JSON.stringify(r.body)).toContain('is not searchable');
        }
      },
    );

    it.each([
      {
        name: '30,000 leaves',
        filter: { op: 'or', conds: Array.from({ length: 30_000 }, () => leaf) },
        text: 'nodes and values',
      },
      { name: 'nesting 1,000 deep', filter: nested(1000), text: 'nests deeper than' },
    ])('$name is a 400 naming the filter', async ({ filter, text }) => {
      for (const r of [await find({ query: 'coffee', filter }), await context({ query: 'coffee', filter })]) {
        expect(r.status).toBe(400);
        expect(JSON.stringify(r.body)).toContain(text);
      }
    });

    it.each([
      { name: 'back-references', pattern: '^(.*)(.*)(.*)\\3\\2\\1$', text: 'back-reference' },
      { name: 'nested quantifiers', pattern: '^(a+)+$', text: 'nested quantifiers' },
      { name: 'a look-ahead', pattern: '(?=x)coffee', text: 'look-around' },
      { name: 'a reversed range', pattern: '[z-a]', text: 'reversed range z-a' },
      { name: 'a class as a range end', pattern: '[\\w-a]', text: 'class escape as a range end' },
      { name: 'a - after a range', pattern: '[a-a-z]', text: 'right after the range' },
      { name: 'a repeated word boundary', pattern: '\\b*coffee', text: 'nothing to repeat' },
    ])('a regex with $name is a 400 naming filter.pattern', async ({ pattern, text }) => {
      const filter = { op: 'regex', field: 'abstract', pattern };
      for (const r of [await find({ query: 'coffee', filter }), await context({ query: 'coffee', filter })]) {
        expect(r.status).toBe(400);
        expect(JSON.stringify(r.body)).toContain('filter.pattern');
        expect(JSON.stringify(r.body)).toContain(text);
        // PostgreSQL's own error text never reaches a client (docs/limits-and-security.md).
        expect(JSON.stringify(r.body)).not.toContain('invalid regular expression');
      }
    });

    it('runs an accepted regex, with \\b as a word boundary', async () => {
      const hit = await find({ query: 'coffee', filter: { op: 'regex', field: 'uri', pattern: '\\bcoffee\\.md$' } });
      expect(hit.status).toBe(200);
      expect(hit.body.result.memories.map((m: { uri: string }) => m.uri)).toEqual([
        'viking://user/default/memories/preferences/coffee.md',
      ]);
      const miss = await find({ query: 'coffee', filter: { op: 'regex', field: 'uri', pattern: '\\boffee\\.md$' } });
      expect(miss.body.result.memories).toEqual([]);
    });
  });

  it('handles a 200 KB single-word query without stalling (200 or a 400 for its length, never 5xx)', async () => {
    const r = await find({ query: 'x'.repeat(200_000) });
    expect([200, 400]).toContain(r.status);
  });

  it('fs stat and ls report UTF-8 sizes computed by the store, and a directory count', async () => {
    const uri = 'viking://resources/docs/grüße.md';
    const bytes = Buffer.byteLength('Grüße aus Köln — 日本語', 'utf8');
    const stat = await app.request('GET', `/api/v1/fs/stat?uri=${encodeURIComponent(uri)}`);
    expect(stat.status).toBe(200);
    expect(stat.body.result).toMatchObject({ uri, size: bytes, isDir: false });
    const ls = await app.request('GET', '/api/v1/fs/ls?uri=viking://resources/docs');
    expect(ls.body.result).toEqual([expect.objectContaining({ uri, size: bytes, isDir: false })]);
    const dir = await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/docs');
    expect(dir.body.result).toMatchObject({ isDir: true, size: 0, count: 1 });
  });

  it('answers /health while the store runs a slow statement, which then times out', async () => {
    const db = app.nest.get<Db>(STORE_DB);
    const order: string[] = [];
    const slow = db.query(RUNAWAY, ['x']).then(
      () => order.push('slow: finished'),
      (err: { code?: string }) => order.push(`slow: ${err.code}`),
    );
    await new Promise((r) => setTimeout(r, 200));
    const health = await app.request('GET', '/health');
    order.push(`health: ${health.status}`);
    await slow;
    expect(order[0]).toBe('health: 200');
    expect(order[1]).toBe('slow: DEADLINE_EXCEEDED');
    // The store answers statements again afterwards (on PGlite, after the worker was replaced).
    expect((await db.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    expect((await app.request('GET', '/health')).body.checks.store).toBe('up');
  });

  it('exposes the event-loop delay in /metrics', async () => {
    const r = await app.request('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });
});

describe('worker metrics listener', () => {
  it('serves the event-loop delay of a worker process, labelled with its app', async () => {
    const config = loadConfig({ MUNINN_METRICS_PORT: '0', HOST: '127.0.0.1' });
    const server = await startWorkerMetrics(config, 'retriever');
    try {
      const { port } = server!.address() as { port: number };
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds\{app="retriever"\} \d/m);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      server!.close();
    }
  });

  it('starts nothing without MUNINN_METRICS_PORT', async () => {
    expect(await startWorkerMetrics(loadConfig({}), 'assembler')).toBeNull();
  });
});

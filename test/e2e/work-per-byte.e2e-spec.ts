/**
 * docs/limits-and-security.md, "Work per byte": a memory far larger than any block costs what the
 * block and the find answer can use, not its size. Its stored abstract (what every find hit carries,
 * through Redis) is cut at MUNINN_MEMORY_ABSTRACT_MAX_CHARS, and an assembly reads at most
 * `bodyReadChars(max_tokens)` of its body.
 */
import { bodyReadChars } from '@app/kernel';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { QueueName } from '@app/contracts';
import {
  callMcpTool,
  droppableRequest,
  eventually,
  metricValue,
  startTestApp,
  TestApp,
  untilSlots,
} from '@app/testing';

const HUGE = 'viking://user/default/memories/events/kestrel-log.md';
const SMALL = 'viking://user/default/memories/events/kestrel-note.md';
const LINE = 'Kestrel migration step done, checked the ledger and moved on. ';
/** ~600,000 characters: the word `ospreyfinale` only past what an assembly reads. */
const BODY = `# Summary\nKestrel migration log.\n\n# Notes\n${`${LINE}\n`.repeat(9400)}ospreyfinale closing line.\n`;

describe('work per byte', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      env: { MUNINN_MEMORY_ABSTRACT_MAX_CHARS: '2000', MUNINN_MCP_READ_MAX_CHARS: '50000', MUNINN_TREE_MAX_NODES: '6' },
    });
    for (const [uri, content] of [
      [HUGE, BODY],
      [SMALL, 'Kestrel migration: the last step is the ledger check.'],
    ]) {
      const w = await app.request('POST', '/api/v1/content/write', {
        body: { uri, content, mode: 'create', wait: true },
      });
      expect(w.status).toBe(200);
    }
  }, 60_000);

  afterAll(() => app.close());

  it('a huge memory is found with an abstract cut at the configured bound; a small one stays whole', async () => {
    expect(BODY.length).toBeGreaterThan(bodyReadChars(32000));
    const r = await app.request('POST', '/api/v1/search/find', { body: { query: 'kestrel migration ledger' } });
    expect(r.status).toBe(200);
    const hits = r.body.result.memories as { uri: string; abstract: string }[];
    const huge = hits.find((h) => h.uri === HUGE)!;
    const small = hits.find((h) => h.uri === SMALL)!;
    expect([...huge.abstract].length).toBeLessThanOrEqual(2000);
    expect(huge.abstract.startsWith('# Summary\nKestrel migration log.')).toBe(true);
    expect(huge.abstract.endsWith('…')).toBe(true);
    expect(small.abstract).toBe('Kestrel migration: the last step is the ledger check.');
    // The whole body is still what a read returns.
    const read = await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(HUGE)}`);
    expect(read.body.result.trimEnd()).toBe(BODY.trimEnd());
  });

  it('a context block serves the huge memory as an excerpt within budget, never as a cut "full" body', async () => {
    const r = await app.request('POST', '/api/v1/search/search', {
      body: { query: 'kestrel migration ledger', mode: 'context', max_tokens: 1600, explain: true },
    });
    expect(r.status).toBe(200);
    const { entries, stats, rendered } = r.body.result;
    const huge = (entries as { uri: string; detail: string; text: string }[]).find((e) => e.uri === HUGE);
    expect(huge?.detail).toBe('overview');
    expect(huge!.text).toContain('Kestrel migration');
    expect(stats.used_tokens).toBeLessThanOrEqual(1600);
    expect(rendered).not.toContain('ospreyfinale');
    // At the largest budget, too, the cut body stays over it: no entry is the huge memory at full.
    const big = await app.request('POST', '/api/v1/search/search', {
      body: { query: 'kestrel migration ledger', mode: 'context', max_tokens: 32000 },
    });
    const atBig = (big.body.result.entries as { uri: string; detail: string }[]).find((e) => e.uri === HUGE);
    expect(atBig?.detail).toBe('overview');
  });

  it('MCP read answers at most MUNINN_MCP_READ_MAX_CHARS over all its URIs, each URI read once', async () => {
    const { result } = await callMcpTool(app.url, 'dev', 'read', { uris: [SMALL, HUGE, HUGE, SMALL] });
    const text = result.content[0].text as string;
    // Four sections; the huge body is cut at what was left of the bound, its repeat is not read again.
    expect(text.split(/^=== viking:\/\//m)).toHaveLength(5);
    expect(text.length).toBeLessThan(50000 + 2000);
    expect(text).toContain('Kestrel migration: the last step is the ledger check.');
    expect(text).toContain('[cut: this answer reached MUNINN_MCP_READ_MAX_CHARS (50000 characters)');
    expect(text).not.toContain('ospreyfinale');
    // One file alone is answered whole when it fits.
    const one = await callMcpTool(app.url, 'dev', 'read', { uris: [SMALL] });
    expect(one.result.content[0].text).toBe('Kestrel migration: the last step is the ledger check.');
  });

  it('a request-path result leaves Redis within seconds, and its queue keeps a short event stream', async () => {
    const find = app.nest.get<Queue>(getQueueToken(QueueName.Find));
    expect(find.opts.streams?.events?.maxLen).toBe(2000);
    expect(app.nest.get<Queue>(getQueueToken(QueueName.Index)).opts.streams?.events?.maxLen).toBe(10000);
    const r = await app.request('POST', '/api/v1/search/find', { body: { query: 'kestrel ledger' } });
    expect(r.status).toBe(200);
    const [job] = await find.getCompleted(0, 0);
    expect(job?.opts.removeOnComplete).toEqual({ age: 10, count: 1000 });
  });

  it('an MCP tree line carries at most 256 characters of abstract; a listing at most the tree bound', async () => {
    const { result } = await callMcpTool(app.url, 'dev', 'tree', {
      uri: 'viking://user/default/memories/events',
      include_abstract: true,
    });
    const text = result.content[0].text as string;
    const line = text.split('\n').find((l) => l.trim().startsWith('- # Summary Kestrel migration log.'))!;
    expect([...line.trim()].length).toBeLessThanOrEqual(2 + 256);
    expect(line.endsWith('…')).toBe(true);
    for (let i = 0; i < 9; i++) {
      const w = await app.request('POST', '/api/v1/content/write', {
        body: { uri: `viking://resources/many/f${i}.md`, content: `file ${i}`, mode: 'create' },
      });
      expect(w.status).toBe(200);
    }
    const ls = await app.request('GET', '/api/v1/fs/ls?uri=viking://resources/many&limit=100000&simple=true');
    expect([ls.status, ls.body.result.length]).toEqual([200, 6]);
  });
});

/** A Muninn in api_key mode with `env`, and the key of each of `accounts`' first admin. */
async function appWithAccounts(root: string, env: Record<string, string>, accounts: string[]) {
  const app = await startTestApp({ rootApiKey: root, env });
  const keys: Record<string, string> = {};
  for (const account of accounts) {
    const r = await app.request('POST', '/api/v1/admin/accounts', {
      key: root,
      body: { account_id: account, admin_user_id: 'boss' },
    });
    keys[account] = r.body.result.user_key;
  }
  return { app, keys };
}

/** Until `queue` holds a waiting job: a request held in the paused queue, holding its slots. */
async function untilWaiting(queue: Queue): Promise<void> {
  await eventually(async () => (await queue.getJobCountByTypes('waiting')) > 0, { ms: 5000, pollMs: 10 });
}

describe("an account's scan lane", () => {
  const ROOT = 'work-per-byte-root-key-0123456789';
  let app: TestApp;
  let keys: Record<string, string> = {};
  const grep = (key: string) =>
    app.request('POST', '/api/v1/search/grep', { key, body: { uri: 'viking://resources', pattern: 'x' } });

  beforeAll(async () => {
    ({ app, keys } = await appWithAccounts(ROOT, { MUNINN_ACCOUNT_MAX_SCANS: '1', MUNINN_ACCOUNT_MAX_QUEUED: '0' }, [
      'sa',
      'sb',
    ]));
  }, 60_000);

  afterAll(() => app.close());

  it('holds one grep per account at a time: the next is 429 `scans` while other requests and accounts run', async () => {
    const scans = app.nest.get<Queue>(getQueueToken(QueueName.Scan));
    await scans.pause();
    try {
      const held = grep(keys.sa);
      // The held grep's job waits in the paused queue, so its scan slot stays taken.
      await untilWaiting(scans);
      const second = await grep(keys.sa);
      expect([second.status, second.body.error?.details?.limit]).toEqual([429, 'scans']);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(second.body.error.message).toContain('greps and globs in flight for account sa');
      // A request that scans nothing still has its request slot, and another account its own scan lane.
      expect((await app.request('GET', '/api/v1/system/status', { key: keys.sa })).status).toBe(200);
      const other = grep(keys.sb);
      await scans.resume();
      expect((await held).status).toBe(200);
      expect((await other).status).toBe(200);
    } finally {
      await scans.resume();
    }
    expect((await grep(keys.sa)).status).toBe(200);
  });
});

describe("an account's large-search lane", () => {
  const ROOT = 'work-per-byte-large-search-root-0123';
  let app: TestApp;
  let keys: Record<string, string> = {};
  const large = (key: string, extra: Record<string, unknown> = {}) =>
    app.request('POST', '/api/v1/search/search', {
      key,
      body: { query: 'heron', mode: 'context', quotas: { events: 150, entities: 150 }, ...extra },
    });
  const find = (key: string, limit: number) =>
    app.request('POST', '/api/v1/search/find', { key, body: { query: 'heron', limit } });

  beforeAll(async () => {
    ({ app, keys } = await appWithAccounts(
      ROOT,
      {
        MUNINN_ACCOUNT_MAX_LARGE_SEARCHES: '1',
        MUNINN_LARGE_SEARCH_CANDIDATES: '200',
        MUNINN_ACCOUNT_MAX_QUEUED: '0',
      },
      ['la', 'lb'],
    ));
  }, 60_000);

  afterAll(() => app.close());

  it('holds one large search per account at a time: the next is 429 `large_searches`, small ones and other accounts run', async () => {
    const finds = app.nest.get<Queue>(getQueueToken(QueueName.Find));
    await finds.pause();
    try {
      // 300 candidates over two buckets: a large search, whose find job waits in the paused queue holding its slot.
      const held = large(keys.la);
      await untilWaiting(finds);
      const second = await large(keys.la, { max_tokens: 3200 });
      expect([second.status, second.body.error?.details?.limit]).toEqual([429, 'large_searches']);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(second.body.error.message).toContain('large searches in flight for account la');
      expect(second.body.error.message).toContain('MUNINN_ACCOUNT_MAX_LARGE_SEARCHES');
      // A /find past the threshold is a large search too, over REST and as an MCP tool call.
      expect((await find(keys.la, 201)).body.error?.details?.limit).toBe('large_searches');
      const tool = await callMcpTool(app.url, keys.la, 'find', { query: 'heron', limit: 500 });
      expect([tool.result.isError, tool.result.content[0].text]).toEqual([
        true,
        expect.stringContaining('large searches in flight for account la'),
      ]);
      // A search of 200 candidates is not large: it runs beside the held one (it waits for the paused queue).
      const small = find(keys.la, 200);
      // Another account has a lane of its own.
      const other = large(keys.lb);
      await finds.resume();
      expect((await held).status).toBe(200);
      expect((await small).status).toBe(200);
      expect((await other).status).toBe(200);
    } finally {
      await finds.resume();
    }
    expect((await large(keys.la)).status).toBe(200);
  });
});

describe("a request whose client goes away leaves its account's line", () => {
  const ROOT = 'work-per-byte-gone-root-key-0123456';
  let app: TestApp;
  let keys: Record<string, string> = {};
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const FIND = { query: 'heron', limit: 10 };
  const LARGE = { query: 'heron', mode: 'context', quotas: { events: 150, entities: 150 } };
  const send = (key: string, route: string, body: unknown) =>
    app.request('POST', `/api/v1/search/${route}`, { key, body });

  /** Sends a request of `key`'s account that waits in its line, and drops its connection while it waits. */
  async function leaveWhileWaiting(key: string, route: string, body: unknown): Promise<void> {
    const gone = droppableRequest(`${app.url}/api/v1/search/${route}`, body, { 'x-api-key': key });
    await sleep(300);
    gone.drop();
    await sleep(200);
  }

  beforeAll(async () => {
    ({ app, keys } = await appWithAccounts(
      ROOT,
      { MUNINN_ACCOUNT_MAX_QUEUED: '1', MUNINN_ACCOUNT_MAX_LARGE_SEARCHES: '1', MUNINN_LARGE_SEARCH_CANDIDATES: '200' },
      ['ga', 'gb'],
    ));
    const limits = { key: ROOT, body: { max_inflight: 1 } };
    expect((await app.request('PUT', '/api/v1/admin/accounts/ga/limits', limits)).status).toBe(200);
  }, 60_000);

  afterAll(() => app.close());

  /** A series of the lines' metrics on `/metrics` (0 before its first observation). */
  const metric = async (series: string) => (await metricValue(app.request, series)) ?? 0;

  it.each([
    ['request slots', 'ga', 'find', FIND, 'inflight'],
    ['large-search lane', 'gb', 'search', LARGE, 'large_searches'],
  ])('%s: the line of one has room again for a live request', async (_lane, account, route, body, lane) => {
    const waits = (outcome: string) => metric(`muninn_lane_wait_seconds_count{lane="${lane}",outcome="${outcome}"}`);
    const [goneBefore, admittedBefore] = [await waits('gone'), await waits('admitted')];
    const finds = app.nest.get<Queue>(getQueueToken(QueueName.Find));
    await finds.pause();
    try {
      // The account's one slot is held by a request whose find job waits in the paused queue.
      const held = send(keys[account], route, body);
      await untilWaiting(finds);
      // The next one waits in the account's line of one, and its client goes away meanwhile.
      await leaveWhileWaiting(keys[account], route, body);
      expect(await waits('gone')).toBe(goneBefore + 1);
      // A live request takes the place it left (behind a waiting request that stayed, it was 429, the line full).
      const live = send(keys[account], route, body);
      await sleep(200);
      expect(await metric(`muninn_lane_requests{lane="${lane}",state="waiting"}`)).toBe(1);
      expect(await metric(`muninn_lane_requests{lane="${lane}",state="running"}`)).toBe(1);
      await finds.resume();
      expect((await held).status).toBe(200);
      const answered = await live;
      expect([answered.status, answered.body.error?.message]).toEqual([200, undefined]);
      expect(await waits('admitted')).toBe(admittedBefore + 1);
    } finally {
      await finds.resume();
    }
  });
});

describe("an account's large-body lane", () => {
  const ROOT = 'work-per-byte-large-body-root-01234';
  let app: TestApp;
  let keys: Record<string, string> = {};
  const write = (key: string, name: string, chars: number) =>
    app.request('POST', '/api/v1/content/write', {
      key,
      body: { uri: `viking://resources/lane/${name}.md`, content: 'b'.repeat(chars), mode: 'create' },
    });

  beforeAll(async () => {
    ({ app, keys } = await appWithAccounts(
      ROOT,
      { MUNINN_ACCOUNT_MAX_LARGE_BODIES: '1', MUNINN_LARGE_BODY_BYTES: '4096', MUNINN_ACCOUNT_MAX_QUEUED: '0' },
      ['ba', 'bb'],
    ));
  }, 60_000);

  afterAll(() => app.close());

  it('holds one request with a large body per account: the next is 429 `large_bodies` before its body is read', async () => {
    const { request } = await import('node:http');
    const url = new URL(app.url);
    const body = JSON.stringify({ uri: 'viking://resources/lane/held.md', content: 'h'.repeat(8000), mode: 'create' });
    // Admitted on its headers, then its body half sent: it holds its large-body slot until the rest arrives.
    const held = request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/api/v1/content/write',
      headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': keys.ba },
    });
    const answered = new Promise<number>((resolve, reject) => {
      held.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      held.on('error', reject);
    });
    held.write(body.slice(0, 4000));
    try {
      await untilSlots(app.request, 'running', 1, 'large_bodies');
      const second = await write(keys.ba, 'second', 8000);
      expect([second.status, second.body.error?.details?.limit]).toEqual([429, 'large_bodies']);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(second.body.error.message).toContain('requests with large bodies in flight for account ba');
      expect(second.body.error.message).toContain('MUNINN_ACCOUNT_MAX_LARGE_BODIES');
      // A body of undeclared length counts as large.
      const chunked = await new Promise<number>((resolve, reject) => {
        const r = request(
          {
            host: url.hostname,
            port: url.port,
            method: 'POST',
            path: '/api/v1/content/write',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': keys.ba },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        r.on('error', reject);
        r.end(JSON.stringify({ uri: 'viking://resources/lane/chunked.md', content: 'c', mode: 'create' }));
      });
      expect(chunked).toBe(429);
      // An MCP request with a large body meets the same lane before its tool calls take their request slots.
      const mcp = await app.request('POST', '/mcp', {
        key: keys.ba,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'write', arguments: { uri: 'viking://resources/lane/mcp.md', content: 'm'.repeat(8000) } },
        },
      });
      // The MCP route answers its refusals as JSON-RPC errors, with the HTTP status.
      expect([mcp.status, mcp.body.error?.message]).toEqual([
        429,
        expect.stringContaining('requests with large bodies in flight for account ba'),
      ]);
      // A small body runs beside it, and another account's large body has a lane of its own.
      expect((await write(keys.ba, 'small', 100)).status).toBe(200);
      expect((await write(keys.bb, 'other', 8000)).status).toBe(200);
    } finally {
      held.end(body.slice(4000));
    }
    expect(await answered).toBe(200);
    expect((await write(keys.ba, 'after', 8000)).status).toBe(200);
  });
});

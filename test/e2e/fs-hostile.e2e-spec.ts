// Hostile inputs to the fs, grep/glob and MCP file tools: every bound is a 400 naming the field, a
// pattern that could backtrack is refused before any scan, and a scan over a large hostile body
// still answers (the regex runs in the store's non-backtracking engine under the statement timeout).
// Grep's work and answer are bounded: bytes read, characters per line, and rate-limit points per MCP
// pattern (docs/fs-and-mcp.md, "Grep and glob").
import { parseMcpBody, startTestApp, TestApp } from '@app/testing';

describe('fs and scan routes under hostile input', () => {
  let app: TestApp;
  const post = (path: string, body: unknown) => app.request('POST', path, { body });
  const expect400 = async (p: Promise<{ status: number; body: any; text: string }>, field: string) => {
    const r = await p;
    expect([field, r.status, r.body.error?.code]).toEqual([field, 400, 'INVALID_ARGUMENT']);
    expect(r.text).toContain(field);
  };

  beforeAll(async () => {
    app = await startTestApp({
      env: {
        MUNINN_SCAN_MAX_RESULTS: '50',
        MUNINN_MOVE_MAX_BYTES: '100000',
        // bait.md (200 KB) and many.md fit; the three 100 KB files of `cap/` do not.
        MUNINN_SCAN_MAX_BYTES: '250000',
        MUNINN_SCAN_MAX_LINE_CHARS: '100',
      },
    });
    // One line of 200k 'a's with no closing 'b': the classic backtracking bait for (a+)+b-style patterns.
    const bait = `${'a'.repeat(200_000)}\n`;
    expect(
      (
        await post('/api/v1/content/write', {
          uri: 'viking://resources/h/bait.md',
          content: bait,
          mode: 'create',
          wait: true,
        })
      ).status,
    ).toBe(200);
    const many = Array.from({ length: 120 }, (_, i) => `line ${i} needle`).join('\n');
    expect(
      (
        await post('/api/v1/content/write', {
          uri: 'viking://resources/h/many.md',
          content: many,
          mode: 'create',
          wait: true,
        })
      ).status,
    ).toBe(200);
  }, 60000);

  afterAll(() => app.close());

  it('grep refuses super-linear and oversized patterns with a 400 naming pattern', async () => {
    for (const pattern of ['(a+)+b', '(a*)*b', '(?=a)', 'a{1000}', 'x'.repeat(300), '(unclosed']) {
      await expect400(post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern }), 'pattern');
    }
  });

  it('grep refuses bracket ranges and quantified boundaries PostgreSQL cannot compile (they were a 500)', async () => {
    for (const pattern of ['[z-a]', '[\\uDFFF-\\uD800]', '[\\d-z]', '[a-\\d]', '[a-a-z]', '\\b*']) {
      const r = await post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern });
      expect([pattern, r.status, r.body.error?.code]).toEqual([pattern, 400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message.startsWith('pattern ')).toBe(true);
      expect(r.text).not.toContain('invalid regular expression');
    }
    const ok = await post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern: 'line [!--]?1[0-9-]? ' });
    expect([ok.status, ok.body.result.count]).toEqual([200, 11]);
    const glob = await post('/api/v1/search/glob', { uri: 'viking://resources/h', pattern: '[a-c-e]*.md' });
    expect([glob.status, glob.body.result.matches]).toEqual([200, ['viking://resources/h/bait.md']]);
  });

  it('grep over a 200k-character line with an allowed pattern answers, bounded by the server result cap', async () => {
    const r = await post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern: 'a*a*a*a*a*b' });
    expect([r.status, r.body.result.matches]).toEqual([200, []]);
    const capped = await post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern: 'needle', node_limit: 0 });
    expect(capped.body.result.count).toBe(50);
    const small = await post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern: 'needle', node_limit: 3 });
    expect(small.body.result.matches.map((m: { line: number }) => m.line)).toEqual([1, 2, 3]);
  });

  it('a directory overview holding a 60k-space run goes through a context block (its gists split in one pass)', async () => {
    // The redundancy check splits a served listing into gists; its split pattern once rescanned a whitespace
    // run from each space: this request took 3.2 s, nearly all of it the assembler's loop held (0.3 s now).
    // The lint refuses such patterns now (eslint.config.mjs, the regexp rules); the overview fits the
    // per-entry cap (4 candidates at 32,000 tokens), so it enters the block at `overview`, not as its abstract.
    const dir = 'viking://resources/wide';
    expect(
      (await post('/api/v1/content/write', { uri: `${dir}/a.md`, content: 'unrelated', mode: 'create', wait: true }))
        .status,
    ).toBe(200);
    const overview = `zephyrine${' '.repeat(60_000)}quillwort — marigold; yarrow`;
    expect(
      (await post('/api/v1/content/write', { uri: `${dir}/.overview.md`, content: overview, wait: true })).status,
    ).toBe(200);
    const r = await post('/api/v1/search/search', {
      query: 'zephyrine quillwort',
      mode: 'context',
      max_tokens: 32000,
      detail: { resources: 'overview' },
      explain: true,
    });
    expect([r.status, r.body.error?.message]).toEqual([200, undefined]);
    // The listing reached the served entries and went through the redundancy check (served, or withdrawn by it).
    const note = r.body.result.explain.entries.find((e: { uri: string }) => e.uri === dir);
    expect(['served', 'redundant']).toContain(note?.outcome);
  }, 120000);

  it('grep reads files in URI order up to MUNINN_SCAN_MAX_BYTES and says which it skipped', async () => {
    // 100 KB each: a and b fit in 250,000 bytes, c would pass it. Before the bound every file was read
    // (a tenant's 991 MB took 4 s of the shared store per grep).
    for (const name of ['a', 'b', 'c']) {
      const content = `${'filler line\n'.repeat(8333)}needle in ${name}`;
      const w = await post('/api/v1/content/write', {
        uri: `viking://resources/cap/${name}.md`,
        content,
        mode: 'create',
        wait: true,
      });
      expect(w.status).toBe(200);
    }
    const r = await post('/api/v1/search/grep', { uri: 'viking://resources/cap', pattern: 'needle' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.result)).toEqual([
      'matches',
      'count',
      'match_count',
      'files_scanned',
      'files_skipped',
      'truncated',
    ]);
    const { matches, files_scanned, files_skipped, truncated } = r.body.result;
    expect(matches.map((m: { content: string }) => m.content)).toEqual(['needle in a', 'needle in b']);
    expect([files_scanned, files_skipped, truncated]).toEqual([2, 1, true]);
    // One file under the bound is read whole, and nothing is skipped.
    const one = await post('/api/v1/search/grep', { uri: 'viking://resources/cap/c.md', pattern: 'needle' });
    expect([one.body.result.count, one.body.result.files_skipped, one.body.result.truncated]).toEqual([1, 0, false]);
  });

  it('a matching line longer than MUNINN_SCAN_MAX_LINE_CHARS comes back cut around its match, marked with …', async () => {
    // A 10 KB-per-line file made a 40 MB answer for one grep (kept twice in Redis) before the cut.
    const line = `${'x'.repeat(5000)}MATCH${'y'.repeat(5000)}`;
    const content = [line, 'short MATCH', `MATCH${'z'.repeat(300)}`].join('\n');
    const w = await post('/api/v1/content/write', {
      uri: 'viking://resources/long/l.md',
      content,
      mode: 'create',
      wait: true,
    });
    expect(w.status).toBe(200);
    const r = await post('/api/v1/search/grep', { uri: 'viking://resources/long', pattern: 'MATCH' });
    const [mid, short, head] = r.body.result.matches.map((m: { content: string }) => m.content);
    expect(mid).toBe(`…${'x'.repeat(50)}MATCH${'y'.repeat(45)}…`);
    expect(short).toBe('short MATCH');
    expect(head).toBe(`MATCH${'z'.repeat(95)}…`);
    const insensitive = await post('/api/v1/search/grep', {
      uri: 'viking://resources/long',
      pattern: 'match',
      case_insensitive: true,
    });
    expect(insensitive.body.result.matches[0].content).toBe(mid);
  });

  it('glob: long star runs stay linear; bad brackets and oversized patterns are 400', async () => {
    const stars = await post('/api/v1/search/glob', { pattern: `${'*'.repeat(200)}.md`, uri: 'viking://resources/h' });
    expect(stars.body.result.matches).toEqual(['viking://resources/h/bait.md', 'viking://resources/h/many.md']);
    for (const pattern of ['[', '[z-a]', 'x'.repeat(300)])
      await expect400(post('/api/v1/search/glob', { pattern }), 'pattern');
    const empty = await post('/api/v1/search/glob', { pattern: '' });
    expect(empty.status).toBe(400);
  });

  it('bounds on fs routes name their field', async () => {
    const long = `viking://resources/${'x'.repeat(5000)}`;
    await expect400(app.request('GET', '/api/v1/fs/tree?uri=viking://resources&node_limit=1000000'), 'node_limit');
    await expect400(app.request('GET', '/api/v1/fs/tree?uri=viking://resources&level_limit=0'), 'level_limit');
    await expect400(app.request('GET', `/api/v1/fs/tree?uri=${long}`), 'uri');
    await expect400(post('/api/v1/fs/mv', { from_uri: long, to_uri: 'viking://resources/y' }), 'from_uri');
    await expect400(
      post('/api/v1/fs/mv', { from_uri: 'viking://resources/h', to_uri: 'viking://resources/h/inside' }),
      'to_uri',
    );
    await expect400(
      post('/api/v1/fs/attrs/set_tags', {
        uri: 'viking://resources/h',
        tags: Array.from({ length: 65 }, (_, i) => `k${i}=v`),
      }),
      'tags',
    );
    await expect400(
      post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern: 'a', level_limit: 1000 }),
      'level_limit',
    );
    await expect400(
      post('/api/v1/search/grep', { uri: 'viking://resources/h', pattern: 'a', node_limit: -1 }),
      'node_limit',
    );
    await expect400(
      post('/api/v1/content/reindex', {
        uri: 'viking://resources/h',
        tags: Array.from({ length: 65 }, (_, i) => `k${i}=v`),
      }),
      'tags',
    );
  });

  it('mv of more content than MUNINN_MOVE_MAX_BYTES is a 400 naming from_uri, and moves nothing', async () => {
    // The move copies every body through the gateway: 10,000 large files would be gigabytes in its memory.
    const r = await post('/api/v1/fs/mv', { from_uri: 'viking://resources/h', to_uri: 'viking://resources/h2' });
    expect([r.status, r.body.error.code, r.body.error.details.field, r.body.error.details.limit_bytes]).toEqual([
      400,
      'INVALID_ARGUMENT',
      'from_uri',
      100000,
    ]);
    expect(r.body.error.message).toMatch(
      /^cannot move more than 100000 bytes of content at once \(2\d{5} under viking:\/\/resources\/h\)$/,
    );
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/h/bait.md')).status).toBe(200);
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/h2')).status).toBe(404);
    // Under the bound a move goes through.
    const small = 'viking://resources/h-small/note.md';
    expect((await post('/api/v1/content/write', { uri: small, content: 'small', mode: 'create' })).status).toBe(200);
    const ok = await post('/api/v1/fs/mv', {
      from_uri: 'viking://resources/h-small',
      to_uri: 'viking://resources/h-moved',
    });
    expect(ok.status).toBe(200);
    expect((await app.request('GET', '/api/v1/content/read?uri=viking://resources/h-moved/note.md')).body.result).toBe(
      'small',
    );
  });

  it('batch-write refuses what /content/write refuses: 400 naming the operation, nothing of the batch stored', async () => {
    // Audit finding 6: a batch skipped the write rules; a file at viking://~/memories broke every later memory write.
    const refused: [string, 'create' | 'replace' | 'upsert'][] = [
      ['viking://~/resources/.relations.json', 'create'],
      ['viking://~/resources/tool.exe', 'create'],
      ['viking://~/resources/tool.exe', 'upsert'],
      ['viking://~/resources/Makefile', 'create'],
      ['viking://~/peers/x.md', 'create'],
      ['viking://~/sessions/s1/history/h.md', 'create'],
      ['viking://~/memories', 'create'],
      ['viking://~/memories', 'upsert'],
      ['viking://~/skills', 'upsert'],
    ];
    for (const [uri, mode] of refused) {
      const single = await post('/api/v1/content/write', {
        uri,
        content: 'x',
        mode: mode === 'upsert' ? 'create' : mode,
      });
      expect([uri, single.status]).toEqual([uri, 400]);
      const batch = await post('/api/v1/content/batch-write', {
        root_uri: 'viking://~',
        operations: [
          { uri: 'viking://~/resources/fine.md', content: 'fine', mode: 'create' },
          { uri, content: 'x', mode },
        ],
      });
      expect([uri, mode, batch.status, batch.body.error?.code, batch.body.error?.details?.field]).toEqual([
        uri,
        mode,
        400,
        'INVALID_ARGUMENT',
        'operations[1].uri',
      ]);
      expect(batch.body.error.message).toContain('operations[1]');
    }
    expect((await app.request('GET', '/api/v1/fs/stat?uri=viking://~/resources/fine.md')).status).toBe(404);
    // A single write refuses a file at any standing directory, whatever the mode.
    for (const uri of ['viking://resources', 'viking://agent/skills', 'viking://~', 'viking://~/sessions']) {
      const r = await post('/api/v1/content/write', { uri, content: 'x', mode: 'replace' });
      expect([uri, r.status, r.body.error?.details?.field]).toEqual([uri, 400, 'uri']);
    }
    // The user's memories stay a directory: a memory write still goes through.
    const memory = await post('/api/v1/content/write', {
      uri: 'viking://~/memories/pref.md',
      content: 'tea',
      mode: 'create',
    });
    expect(memory.status).toBe(200);
  });

  it("mv and grep stay inside the caller's tree: unsafe segments are refused", async () => {
    const dots = await post('/api/v1/fs/mv', {
      from_uri: 'viking://resources/h',
      to_uri: 'viking://resources/../user/x',
    });
    expect([dots.status, dots.body.error.code]).toEqual([400, 'INVALID_URI']);
    const excl = await post('/api/v1/search/grep', {
      uri: 'viking://resources/h',
      pattern: 'needle',
      exclude_uri: 'not-a-uri',
    });
    expect([excl.status, excl.body.error.code]).toEqual([400, 'INVALID_URI']);
  });
});

describe('MCP grep with several patterns', () => {
  const ROOT = 'fs-hostile-rate-root-0123456789';
  let app: TestApp;
  let key = '';

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT, env: { MUNINN_RATE_KEY_PER_MINUTE: '6' } });
    const r = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'greps', admin_user_id: 'boss' },
    });
    key = r.body.result.user_key;
  });

  afterAll(() => app.close());

  const grep = async (patterns: string[]) => {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': key,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'grep', arguments: { uri: 'viking://resources', pattern: patterns } },
      }),
    });
    const [msg] = parseMcpBody(res.headers.get('content-type'), await res.text());
    return msg.result as { isError?: boolean; content: { text: string }[] };
  };

  it('counts one request per pattern against the rate limit (each is its own scan)', async () => {
    // 4 patterns: 4 of the key's 6 points. One admitted call used to run 10 scans for 1 point.
    expect((await grep(['zzq1', 'zzq2', 'zzq3', 'zzq4'])).isError).toBeUndefined();
    // 1 admitted + 2 more would be 7: the call is refused before any scan runs.
    const over = await grep(['zzq5', 'zzq6', 'zzq7']);
    expect(over.isError).toBe(true);
    expect(over.content[0]!.text).toContain('Rate limit exceeded');
    const next = await app.request('GET', '/api/v1/system/status', { key });
    expect(next.status).toBe(429);
  });

  it('refuses more than 10 patterns in one call', async () => {
    const r = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': ROOT },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'grep', arguments: { uri: 'viking://resources', pattern: Array(11).fill('a') } },
      }),
    });
    const [msg] = parseMcpBody(r.headers.get('content-type'), await r.text());
    expect(msg.result?.isError ?? msg.error).toBeTruthy();
  });
});

// Hostile inputs to the fs, grep/glob and MCP file tools: every bound is a 400 naming the field, a
// pattern that could backtrack is refused before any scan, and a scan over a large hostile body
// still answers (the regex runs in the store's non-backtracking engine under the statement timeout).
import { startTestApp, TestApp } from '@app/testing';

describe('fs and scan routes under hostile input', () => {
  let app: TestApp;
  const post = (path: string, body: unknown) => app.request('POST', path, { body });
  const expect400 = async (p: Promise<{ status: number; body: any; text: string }>, field: string) => {
    const r = await p;
    expect([field, r.status, r.body.error?.code]).toEqual([field, 400, 'INVALID_ARGUMENT']);
    expect(r.text).toContain(field);
  };

  beforeAll(async () => {
    app = await startTestApp({ env: { MUNINN_SCAN_MAX_RESULTS: '50', MUNINN_MOVE_MAX_BYTES: '100000' } });
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

// File-system and grep/glob routes of docs/fs-and-mcp.md through real HTTP, on PGlite and PostgreSQL:
// tree order and limits, original listings with names, the user container filtered to the caller,
// attrs and set_tags, mv with the index following, grep/glob run on the retriever's scan queue.
import { startTestApp, storeModes, TestApp } from '@app/testing';

const ROOT_KEY = 'fs-routes-root-key-0123456789';

describe.each(storeModes())('fs routes (%s)', (store) => {
  let app: TestApp;
  let alice: string;
  let bobKey: string;
  const write = (uri: string, content: string, key?: string) =>
    app.request('POST', '/api/v1/content/write', {
      body: { uri, content, mode: 'create', wait: true },
      key: key ?? alice,
    });

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT_KEY });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'acme', admin_user_id: 'alice' },
    });
    alice = acct.body.result.user_key;
    const bob = await app.request('POST', '/api/v1/admin/accounts/acme/users', {
      key: alice,
      body: { user_id: 'bob', role: 'user' },
    });
    expect(bob.status).toBe(200);
    bobKey = bob.body.result.user_key;
    for (const [uri, body] of [
      ['viking://resources/t/top.md', 'top\n'],
      ['viking://resources/t/sub/a.md', 'alpha\n'],
      ['viking://resources/t/sub/deeper/b.md', 'beta\n'],
      ['viking://resources/g/group_a/cache/x.md', 'needle one\n'],
      ['viking://resources/g/group_b/cache/y.md', 'no\nneedle two\n'],
      [
        'viking://user/alice/memories/events/m.md',
        'Needle in memory\n<!-- MEMORY_FIELDS {"memory_type":"events","content":"x","needle":1} -->\n',
      ],
    ] as const)
      expect((await write(uri, body)).status).toBe(200);
    expect(
      (await write('viking://user/bob/memories/events/secret.md', 'bob needle', bob.body.result.user_key)).status,
    ).toBe(200);
  }, 60000);

  afterAll(() => app.close());

  it('case 41: tree: pre-order with directories first, level_limit and node_limit; missing → 404', async () => {
    const t = await app.request('GET', '/api/v1/fs/tree?uri=viking://resources/t&output=original', { key: alice });
    expect(t.status).toBe(200);
    expect(t.body.result.map((e: any) => e.rel_path)).toEqual([
      'sub',
      'sub/deeper',
      'sub/deeper/b.md',
      'sub/a.md',
      'top.md',
    ]);
    expect(t.body.result[0]).toMatchObject({ name: 'sub', isDir: true, uri: 'viking://resources/t/sub' });
    const l1 = await app.request('GET', '/api/v1/fs/tree?uri=viking://resources/t&level_limit=1', { key: alice });
    expect(l1.body.result.map((e: any) => e.rel_path)).toEqual(['sub', 'top.md']);
    expect(l1.body.result[0]).not.toHaveProperty('name');
    const n1 = await app.request('GET', '/api/v1/fs/tree?uri=viking://resources/t&node_limit=1', { key: alice });
    expect(n1.body.result).toHaveLength(1);
    const missing = await app.request('GET', '/api/v1/fs/tree?uri=viking://resources/missing', { key: alice });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const bad = await app.request('GET', '/api/v1/fs/tree?uri=viking://resources/t&level_limit=9999', { key: alice });
    expect([bad.status, bad.text.includes('level_limit')]).toEqual([400, true]);
  });

  it('cases 35, 38, 39, 71: ls viking://user lists only the caller; original entries carry name; other user → 403', async () => {
    const ls = await app.request('GET', '/api/v1/fs/ls?uri=viking://user&output=original', { key: alice });
    expect(ls.status).toBe(200);
    expect(ls.body.result.map((e: any) => e.name)).toEqual(['alice']);
    const root = await app.request('GET', '/api/v1/fs/ls?uri=viking://user&output=original', {
      key: ROOT_KEY,
      headers: { 'x-openviking-account': 'acme' },
    });
    // The root key is not for tenant data in api_key mode (case 71).
    expect(root.status).toBe(403);
    const other = await app.request('GET', '/api/v1/fs/ls?uri=viking://user/bob', { key: alice });
    expect(other.status).toBe(403);
    const simple = await app.request(
      'GET',
      '/api/v1/fs/ls?uri=viking://resources/t&simple=true&recursive=true&output=original',
      { key: alice },
    );
    expect(simple.body.result).toContain('viking://resources/t/sub/deeper/b.md');
  });

  it('case 36: sort_by=mtime desc sorts before node_limit, directories first', async () => {
    const writes = Array.from({ length: 30 }, (_, i) => ({
      uri: `viking://resources/sorted/d${String(i).padStart(2, '0')}/f.md`,
      content: 'x',
      mode: 'create',
    }));
    const batch = await app.request('POST', '/api/v1/content/batch-write', {
      key: alice,
      body: { root_uri: 'viking://resources/sorted', operations: writes, wait: true },
    });
    expect(batch.status).toBe(200);
    expect((await write('viking://resources/sorted/zz-newest/f.md', 'x')).status).toBe(200);
    expect((await write('viking://resources/sorted/newest-file.md', 'x')).status).toBe(200);
    const ls = await app.request(
      'GET',
      '/api/v1/fs/ls?uri=viking://resources/sorted&output=original&node_limit=20&sort_by=mtime&sort_order=desc',
      { key: alice },
    );
    expect(ls.body.result).toHaveLength(20);
    expect(ls.body.result[0].name).toBe('zz-newest');
    expect(ls.body.result.every((e: any) => e.isDir)).toBe(true);
  });

  it('cases 47, 48: attrs and set_tags (and its /content alias): k=v tags only, memory metadata without content; GET set_tags → 405', async () => {
    const file = 'viking://resources/t/top.md';
    const none = await app.request('POST', '/api/v1/fs/attrs/set_tags', { key: alice, body: { uri: file } });
    expect(none.status).toBe(400);
    const extra = await app.request('POST', '/api/v1/fs/attrs/set_tags', {
      key: alice,
      body: { uri: file, tags: ['a=b'], wait: true },
    });
    expect(extra.status).toBe(400);
    const set = await app.request('POST', '/api/v1/fs/attrs/set_tags', {
      key: alice,
      body: { uri: file, tags: ['project-a', 'team=search'] },
    });
    expect([set.status, set.body.result.tags, set.body.result.updated_uris]).toEqual([200, ['team=search'], [file]]);
    const attrs = await app.request('GET', `/api/v1/fs/attrs?uri=${file}`, { key: alice });
    expect(attrs.body.result).toEqual({ uri: file, context_type: 'resource', attrs: { tags: ['team=search'] } });
    const mem = await app.request('GET', '/api/v1/fs/attrs?uri=viking://user/alice/memories/events/m.md', {
      key: alice,
    });
    expect(mem.body.result.attrs.memory).toEqual({ memory_type: 'events', needle: 1 });
    const get = await app.request('GET', '/api/v1/fs/attrs/set_tags', { key: alice });
    expect(get.status).toBe(405);
    // The /content alias is the same operation.
    const alias = await app.request('POST', '/api/v1/content/set_tags', {
      key: alice,
      body: { uri: file, tags: ['team=memory'] },
    });
    expect([alias.status, alias.body.result.tags]).toEqual([200, ['team=memory']]);
    const after = await app.request('GET', `/api/v1/fs/attrs?uri=${file}`, { key: alice });
    expect(after.body.result.attrs).toEqual({ tags: ['team=memory'] });
  });

  it('set_tags is a write: a user cannot retag the agent space, nor the shared resources tree recursively', async () => {
    const skill = 'viking://agent/skills/tagged.md';
    expect((await write(skill, 'A skill the admins keep.')).status).toBe(200);
    const tag = (uri: string, recursive = false) =>
      app.request('POST', '/api/v1/fs/attrs/set_tags', { key: bobKey, body: { uri, tags: ['x=y'], recursive } });
    // Before, read access was enough: both were 200 and every file's tags below were replaced.
    const agent = await tag(skill);
    expect([agent.status, agent.body.error?.code]).toEqual([403, 'PERMISSION_DENIED']);
    const tree = await tag('viking://resources/t', true);
    expect([tree.status, tree.body.error?.code]).toEqual([403, 'PERMISSION_DENIED']);
    const attrs = await app.request('GET', `/api/v1/fs/attrs?uri=${skill}`, { key: alice });
    expect(attrs.body.result.attrs.tags).toEqual([]);
    // A shared file the user may write keeps taking its own tags.
    const own = await tag('viking://resources/t/top.md');
    expect([own.status, own.body.result?.updated_uris]).toEqual([200, ['viking://resources/t/top.md']]);
  });

  it('case 44: mv moves a subtree (readable at the new place, gone at the old); missing source → 404; file onto a dir → 400', async () => {
    expect((await write('viking://resources/mv/src/one.md', 'movable text')).status).toBe(200);
    const mv = await app.request('POST', '/api/v1/fs/mv', {
      key: alice,
      body: { from_uri: 'viking://resources/mv/src', to_uri: 'viking://resources/mv/dst' },
    });
    expect([mv.status, mv.body.result]).toEqual([
      200,
      { from: 'viking://resources/mv/src', to: 'viking://resources/mv/dst' },
    ]);
    const read = await app.request('GET', '/api/v1/content/read?uri=viking://resources/mv/dst/one.md', { key: alice });
    expect(read.body.result).toBe('movable text');
    const old = await app.request('GET', '/api/v1/content/read?uri=viking://resources/mv/src/one.md', { key: alice });
    expect(old.status).toBe(404);
    const missing = await app.request('POST', '/api/v1/fs/mv', {
      key: alice,
      body: { from_uri: 'viking://resources/nope', to_uri: 'viking://resources/nope2' },
    });
    expect(missing.status).toBe(404);
    const ontoDir = await app.request('POST', '/api/v1/fs/mv', {
      key: alice,
      body: { from_uri: 'viking://resources/t/top.md', to_uri: 'viking://resources/t/sub' },
    });
    expect(ontoDir.status).toBe(400);
    const intoSelf = await app.request('POST', '/api/v1/fs/mv', {
      key: alice,
      body: { from_uri: 'viking://resources/t', to_uri: 'viking://resources/t/sub/x' },
    });
    expect(intoSelf.status).toBe(400);
  });

  it('cases 49-51: grep: per line, level_limit, exclude_uri at a segment boundary, memory trailer invisible, other users invisible', async () => {
    const g = await app.request('POST', '/api/v1/search/grep', {
      key: alice,
      body: { uri: 'viking://', pattern: 'needle', case_insensitive: true },
    });
    expect(g.status).toBe(200);
    const uris = g.body.result.matches.map((m: any) => `${m.uri}:${m.line}`);
    expect(uris).toEqual([
      'viking://resources/g/group_a/cache/x.md:1',
      'viking://resources/g/group_b/cache/y.md:2',
      'viking://user/alice/memories/events/m.md:1',
    ]);
    expect(g.body.result.count).toBe(3);
    const ex = await app.request('POST', '/api/v1/search/grep', {
      key: alice,
      body: { uri: 'viking://resources/g', pattern: 'needle', exclude_uri: 'viking://resources/g/group_a/cache' },
    });
    expect(ex.body.result.matches.map((m: any) => m.uri)).toEqual(['viking://resources/g/group_b/cache/y.md']);
    const shallow = await app.request('POST', '/api/v1/search/grep', {
      key: alice,
      body: { uri: 'viking://resources/g', pattern: 'needle', level_limit: 2 },
    });
    expect(shallow.body.result.matches).toEqual([]);
    const missing = await app.request('POST', '/api/v1/search/grep', {
      key: alice,
      body: { uri: 'viking://resources/nonexistent', pattern: 'test' },
    });
    expect(missing.status).toBe(404);
  });

  it('case 52: glob: * stays in a segment, ** crosses; results are URIs; [ → 400', async () => {
    const all = await app.request('POST', '/api/v1/search/glob', {
      key: alice,
      body: { pattern: '**/*.md', uri: 'viking://resources/t' },
    });
    expect(all.body.result).toEqual({
      matches: ['viking://resources/t/sub/a.md', 'viking://resources/t/sub/deeper/b.md', 'viking://resources/t/top.md'],
      count: 3,
    });
    const top = await app.request('POST', '/api/v1/search/glob', {
      key: alice,
      body: { pattern: '*.md', uri: 'viking://resources/t' },
    });
    expect(top.body.result.matches).toEqual(['viking://resources/t/top.md']);
    const bad = await app.request('POST', '/api/v1/search/glob', { key: alice, body: { pattern: '[' } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_ARGUMENT']);
  });
});

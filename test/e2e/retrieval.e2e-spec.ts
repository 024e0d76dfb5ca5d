import { startTestApp, storeModes, TestApp, eventually } from '@app/testing';

const ROOT = 'root-key-for-tests-0123456789';
const FIND = '/api/v1/search/find';
const SEARCH = '/api/v1/search/search';

type Hit = { context_type: string; uri: string; level: number; score: number; abstract: string; tags: string[] };
const hitsOf = (body: any): Hit[] => [...body.result.memories, ...body.result.resources, ...body.result.skills];
const urisOf = (body: any): string[] => hitsOf(body).map((h) => h.uri);

describe.each(storeModes())('retrieval over HTTP → BullMQ → retriever (store: %s)', (store) => {
  let app: TestApp;
  let alice: string;
  let bob: string;
  let globexAlice: string;

  const write = async (key: string, uri: string, content: string, tags?: string[]) => {
    const r = await app.request('POST', '/api/v1/content/write', {
      key,
      body: { uri, content, mode: 'create', wait: true, ...(tags ? { tags } : {}) },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.vector_status).toBe('complete');
  };
  const find = (key: string, body: unknown, headers?: Record<string, string>) =>
    app.request('POST', FIND, { key, body, headers });

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT });
    const acme = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'boss' },
    });
    const admin = acme.body.result.user_key;
    alice = (
      await app.request('POST', '/api/v1/admin/accounts/acme/users', {
        key: admin,
        body: { user_id: 'alice', role: 'user' },
      })
    ).body.result.user_key;
    bob = (
      await app.request('POST', '/api/v1/admin/accounts/acme/users', {
        key: admin,
        body: { user_id: 'bob', role: 'user' },
      })
    ).body.result.user_key;
    // Same user id in another account: identical URIs, different tenant.
    const globex = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'globex', admin_user_id: 'gboss' },
    });
    globexAlice = (
      await app.request('POST', '/api/v1/admin/accounts/globex/users', {
        key: globex.body.result.user_key,
        body: { user_id: 'alice', role: 'user' },
      })
    ).body.result.user_key;

    await write(
      alice,
      'viking://user/alice/memories/preferences/coffee.md',
      '# Summary\nAlice prefers drinking dark roast coffee with oat milk every morning before work.',
      ['topic=coffee'],
    );
    await write(
      alice,
      'viking://user/alice/memories/events/outage.md',
      '# Summary\nThe payment service crashed with ERR_CONN_RESET right after deploying build 4711 on Friday.',
    );
    await write(
      alice,
      'viking://user/alice/memories/entities/cat.md',
      '# Summary\nAlice has a grey cat called Miso who sleeps on the windowsill.',
    );
    await write(
      alice,
      'viking://user/alice/memories/events/planning.md',
      '# Summary\nThe quarterly planning meeting moved to Thursday afternoon.',
    );
    await write(
      alice,
      'viking://user/alice/memories/preferences/allergy.md',
      '# Summary\n用户对花生过敏，吃了会起疹子。',
    );
    await write(alice, 'viking://user/alice/memories/events/running.md', '# Summary\n用户每天早上六点起床去公园跑步。');
    await write(
      alice,
      'viking://resources/guides/deploy.md',
      '# Deploy guide\n\nRun the blue-green deploy script and watch the dashboards.',
    );
    await write(
      alice,
      'viking://resources/guides/rollback.md',
      '# Rollback guide\n\nRevert the release tag and redeploy the previous build.',
    );
    await write(
      alice,
      'viking://user/alice/skills/brew-coffee.md',
      '# Brew coffee\n\nA skill that explains how to brew pour-over coffee.',
    );
    await write(
      alice,
      'viking://user/alice/peers/p1/memories/music.md',
      '# Summary\nPeer one loves saxophone jazz records.',
    );
    await write(
      alice,
      'viking://user/alice/peers/p2/memories/music.md',
      '# Summary\nPeer two loves saxophone jazz concerts.',
    );
    await write(
      bob,
      'viking://user/bob/memories/events/secret.md',
      '# Summary\nBob hid the saxophone jazz tickets for zebra-quasar night.',
    );
    await write(
      globexAlice,
      'viking://user/alice/memories/events/secret.md',
      '# Summary\nGlobex zebra-quasar launch codes ERR_CONN_RESET and saxophone jazz.',
      ['tenant=globex'],
    );
    await write(
      globexAlice,
      'viking://resources/globex-plan.md',
      '# Globex plan\n\nzebra-quasar rollout of the payment service.',
    );
    // Directory summaries of a directory written in quick succession are coalesced (semantic_status
    // "deferred"): let them settle before asserting on rankings that include directories.
    const abstractOf = async (uri: string) =>
      (await app.request('GET', `/api/v1/content/abstract?uri=${encodeURIComponent(uri)}`, { key: alice })).body
        .result ?? '';
    await eventually(async () => String(await abstractOf('viking://user/alice/memories/events')).includes('3 items'));
    await eventually(async () => String(await abstractOf('viking://resources/guides')).includes('2 items'));
  });

  afterAll(() => app.close());

  it('finds a written memory by a paraphrase and by an exact identifier', async () => {
    const para = await find(alice, { query: 'What does Alice like to drink in the mornings?' });
    expect(para.status).toBe(200);
    expect(para.body.result.memories[0].uri).toBe('viking://user/alice/memories/preferences/coffee.md');
    const exact = await find(alice, { query: 'ERR_CONN_RESET' });
    expect(exact.body.result.memories[0]).toMatchObject({
      uri: 'viking://user/alice/memories/events/outage.md',
      context_type: 'memory',
      level: 2,
      abstract:
        '# Summary\nThe payment service crashed with ERR_CONN_RESET right after deploying build 4711 on Friday.',
      tags: [],
    });
    expect(exact.body.result.memories[0].score).toBeGreaterThan(0.6);
    expect(exact.body.result.memories[0].score).toBeLessThanOrEqual(1);
    const build = await find(alice, { query: '4711' });
    expect(build.body.result.memories[0].uri).toBe('viking://user/alice/memories/events/outage.md');
  });

  it('matches other word forms of the query terms (stemmed lexical index), with no stop list of its own', async () => {
    // "crashes"/"deployed" never occur in the memory ("crashed", "deploying"); only stems meet.
    const forms = await find(alice, { query: 'crashes deployed', limit: 3 });
    expect(forms.body.result.memories[0].uri).toBe('viking://user/alice/memories/events/outage.md');
    expect(forms.body.result.memories[0].score).toBeGreaterThan(0.5);
    // "planned meetings" → "planning meeting"; the stemmer keeps identifiers and CJK words whole.
    const plan = await find(alice, { query: 'planned meetings', limit: 1 });
    expect(plan.body.result.memories[0].uri).toBe('viking://user/alice/memories/events/planning.md');
  });

  it('finds a memory by a misspelt word: an unmatched word is read as its one-edit variant the view holds', async () => {
    const typo = await find(alice, { query: 'paymnet crahsed', limit: 3 });
    expect(typo.body.result.memories[0].uri).toBe('viking://user/alice/memories/events/outage.md');
    // Vectors alone score at most 0.4 (0.4 · cos): only the corrected lexical match lifts it past 0.5.
    expect(typo.body.result.memories[0].score).toBeGreaterThan(0.5);
    // The answer keeps the contract's keys; the telemetry summary names the corrections.
    expect(Object.keys(typo.body.result).sort()).toEqual(['memories', 'resources', 'skills', 'total']);
    const told = await find(alice, { query: 'paymnet crahsed', limit: 3, telemetry: true });
    expect(told.body.telemetry.summary.corrected).toEqual([
      { from: 'paymnet', to: 'payment' },
      { from: 'crahsed', to: 'crashed' },
    ]);
    const plain = await find(alice, { query: 'payment', limit: 3, telemetry: true });
    expect(plain.body.telemetry.summary.corrected).toEqual([]);
    // Hostile: 52 distinct unknown words of 20 letters before the typos. The store weighs a query's first 24
    // terms and looks up variants for the first 4 unmatched ones only (one statement), so the answer comes
    // and the typos past those bounds are not corrected.
    const noise = Array.from({ length: 60 }, (_, i) => `qz${String.fromCharCode(97 + (i % 26))}${'x'.repeat(17)}`);
    const flood = await find(alice, {
      query: `${[...new Set(noise)].join(' ')} ${noise.map((w) => w.replace('qz', 'wq')).join(' ')} paymnet crahsed`,
      limit: 3,
      telemetry: true,
    });
    expect(flood.status).toBe(200);
    expect(flood.body.telemetry.summary.corrected).toEqual([]);
    // "tickets" is only in bob's memory: alice's query is not corrected to it, and nothing of hers matches.
    const other = await find(alice, { query: 'tickest', limit: 5 });
    for (const h of hitsOf(other.body)) expect(h.score).toBeLessThanOrEqual(0.4);
    const own = await find(bob, { query: 'tickest', limit: 5 });
    const secret = hitsOf(own.body).find((h) => h.uri === 'viking://user/bob/memories/events/secret.md');
    expect(secret?.score).toBeGreaterThan(0.5);
  });

  it('discounts a long log against a short note with the same terms (BM25 length normalisation)', async () => {
    const note = 'viking://user/alice/memories/entities/kestrel-note.md';
    const log = 'viking://user/alice/memories/events/kestrel-log.md';
    await write(alice, note, 'The kestrel nests on the north balcony.');
    // Hundreds of distinct words around one mention: far longer than the view's average node.
    const filler = Array.from({ length: 400 }, (_, i) => `filler${i}`).join(' ');
    await write(alice, log, `# Summary\nA long day log.\n\n${filler} kestrel balcony ${filler}`);
    const r = await find(alice, {
      query: 'kestrel balcony',
      limit: 5,
      filter: { op: 'must', field: 'level', conds: [2] },
    });
    const hits = r.body.result.memories as Hit[];
    expect(hits.map((h) => h.uri).slice(0, 2)).toEqual([note, log]);
    // Both cover the whole query; without length normalisation the log's lexical share alone would be 0.6.
    expect(hits[1].score).toBeLessThan(0.6);
    expect(hits[0].score).toBeGreaterThan(0.6);
  });

  it('finds a Chinese memory by a Chinese query', async () => {
    const r = await find(alice, { query: '用户对什么食物过敏？' });
    expect(r.body.result.memories[0].uri).toBe('viking://user/alice/memories/preferences/allergy.md');
    const run = await find(alice, { query: '早上去公园跑步' });
    expect(run.body.result.memories[0].uri).toBe('viking://user/alice/memories/events/running.md');
  });

  it('answers the find response shape: three lists sorted by score, total, 0..1 scores, limit and node_limit', async () => {
    const r = await find(alice, { query: 'coffee jazz deploy payment', limit: 50 });
    expect(Object.keys(r.body)).toEqual(['status', 'result']);
    expect(Object.keys(r.body.result)).toEqual(['memories', 'resources', 'skills', 'total']);
    const all = hitsOf(r.body);
    expect(r.body.result.total).toBe(all.length);
    for (const list of [r.body.result.memories, r.body.result.resources, r.body.result.skills] as Hit[][]) {
      expect(list.map((h) => h.score)).toEqual([...list.map((h) => h.score)].sort((a, b) => b - a));
      for (const h of list) expect(h.score > 0 && h.score <= 1).toBe(true);
      // Each item is exactly the contract's, though memory hits carry their whole body internally for assembly.
      for (const h of list)
        expect(Object.keys(h)).toEqual(['context_type', 'uri', 'level', 'score', 'abstract', 'tags']);
    }
    expect(r.body.result.skills.map((h: Hit) => h.uri)).toContain('viking://user/alice/skills/brew-coffee.md');
    expect(r.body.result.resources.map((h: Hit) => h.context_type)).toEqual(
      r.body.result.resources.map(() => 'resource'),
    );
    const two = await find(alice, { query: 'coffee jazz deploy payment', limit: 50, node_limit: 2 });
    expect(two.body.result.total).toBe(2);
    const one = await find(alice, { query: 'coffee jazz deploy payment', limit: 1 });
    expect(one.body.result.total).toBe(1);
    expect(urisOf(one.body)[0]).toBe(all.sort((a, b) => b.score - a.score)[0].uri);
  });

  it('never returns another tenant or user, whatever the target, filter or tags', async () => {
    const plain = await find(alice, { query: 'zebra-quasar saxophone jazz ERR_CONN_RESET', limit: 100 });
    const uris = urisOf(plain.body);
    expect(uris).not.toContain('viking://user/bob/memories/events/secret.md');
    expect(uris).not.toContain('viking://resources/globex-plan.md');
    // Globex's alice has the very same URI as nothing in acme; any hit on it would be a leak.
    expect(uris).not.toContain('viking://user/alice/memories/events/secret.md');
    for (const h of hitsOf(plain.body)) expect(h.abstract).not.toMatch(/Globex|Bob hid/);

    const crafted = [
      { target_uri: 'viking://user/alice/memories/events' },
      { target_uri: ['viking://resources', 'viking://~'] },
      { filter: { op: 'prefix', field: 'uri', prefix: 'viking://' } },
      {
        filter: {
          op: 'or',
          conds: [
            { op: 'must', field: 'context_type', conds: ['memory', 'resource'] },
            { op: 'contains', field: 'abstract', substring: 'zebra' },
          ],
        },
      },
      { tags: ['tenant=globex'] },
    ];
    for (const extra of crafted) {
      const r = await find(alice, { query: 'zebra-quasar', limit: 100, ...extra });
      expect(r.status).toBe(200);
      for (const h of hitsOf(r.body)) expect(h.abstract).not.toMatch(/zebra-quasar/);
    }
    const tagged = await find(alice, { query: 'zebra-quasar', tags: ['tenant=globex'] });
    expect(tagged.body.result.total).toBe(0);
    const otherUser = await find(alice, { query: 'zebra', target_uri: 'viking://user/bob/memories' });
    expect(otherUser.status).toBe(403);
    expect(otherUser.body).toMatchObject({
      status: 'error',
      error: { code: 'PERMISSION_DENIED', message: 'Access denied for viking://user/bob/memories' },
    });
    // Globex sees its own node, by the same URI alice@acme could not reach.
    const own = await find(globexAlice, { query: 'zebra-quasar launch codes' });
    expect(urisOf(own.body)).toContain('viking://user/alice/memories/events/secret.md');
    expect(urisOf(own.body)).not.toContain('viking://user/alice/memories/preferences/coffee.md');
  });

  it('applies the actor-peer view: other peers are hidden, and targeting one is 403', async () => {
    const all = await find(alice, { query: 'saxophone jazz' });
    expect(urisOf(all.body)).toEqual(
      expect.arrayContaining([
        'viking://user/alice/peers/p1/memories/music.md',
        'viking://user/alice/peers/p2/memories/music.md',
      ]),
    );
    const asP1 = await find(alice, { query: 'saxophone jazz' }, { 'x-openviking-actor-peer': 'p1' });
    expect(urisOf(asP1.body)).toContain('viking://user/alice/peers/p1/memories/music.md');
    expect(urisOf(asP1.body)).not.toContain('viking://user/alice/peers/p2/memories/music.md');
    const peersTarget = await find(
      alice,
      { query: 'saxophone jazz', target_uri: 'viking://user/alice/peers', level: 2 },
      { 'x-openviking-actor-peer': 'p1' },
    );
    expect(urisOf(peersTarget.body)).toEqual(['viking://user/alice/peers/p1/memories/music.md']);
    const other = await find(
      alice,
      { query: 'jazz', target_uri: 'viking://user/alice/peers/p2' },
      { 'x-openviking-actor-peer': 'p1' },
    );
    expect(other.status).toBe(403);
    expect(other.body.error.message).toBe("Actor peer cannot access another peer's context.");
  });

  it('matches directories at L0/L1 with sidecar URIs, refreshed after writes and deletes', async () => {
    const l1 = await find(alice, { query: 'guides deploy rollback', level: 1, target_uri: 'viking://resources' });
    const overview = hitsOf(l1.body).find((h) => h.uri === 'viking://resources/guides/.overview.md');
    expect(overview).toMatchObject({ level: 1, context_type: 'resource' });
    expect(overview!.abstract).toContain('deploy.md');
    expect(overview!.abstract).toContain('rollback.md');
    const l0 = await find(alice, { query: 'guides', level: '0', target_uri: 'viking://resources' });
    expect(hitsOf(l0.body).map((h) => [h.uri, h.level])).toContainEqual(['viking://resources/guides/.abstract.md', 0]);
    expect(hitsOf(l0.body).every((h) => h.level === 0)).toBe(true);

    await write(
      alice,
      'viking://resources/guides/canary.md',
      '# Canary guide\n\nShift five percent of traffic to the canary first.',
    );
    const overviewOf = async (query: string) =>
      hitsOf((await find(alice, { query, level: [1], target_uri: 'viking://resources/guides' })).body).find(
        (h) => h.uri === 'viking://resources/guides/.overview.md',
      )!.abstract;
    await eventually(async () => (await overviewOf('guides canary')).includes('canary.md'));

    const del = await app.request(
      'DELETE',
      `/api/v1/fs?uri=${encodeURIComponent('viking://resources/guides/rollback.md')}&wait=true`,
      { key: alice },
    );
    expect(del.status).toBe(200);
    const gone = await find(alice, { query: 'rollback revert release tag', limit: 50 });
    expect(urisOf(gone.body)).not.toContain('viking://resources/guides/rollback.md');
    await eventually(async () => !(await overviewOf('guides deploy')).includes('rollback.md'));
    expect(await overviewOf('guides deploy')).toContain('deploy.md');
  });

  it('/search list mode is /find byte for byte (mode omitted or "list"), without a rendered key', async () => {
    const body = { query: 'coffee deploy jazz', limit: 5, context_type: ['memory', 'resource'] };
    const f = await app.request('POST', FIND, { key: alice, body });
    const s = await app.request('POST', SEARCH, { key: alice, body });
    const l = await app.request('POST', SEARCH, { key: alice, body: { ...body, mode: 'list' } });
    expect(f.status).toBe(200);
    expect(f.body.result.total).toBeGreaterThan(0);
    expect(s.text).toBe(f.text);
    expect(l.text).toBe(f.text);
    expect(s.text).not.toContain('rendered');
  });

  it('keeps only scores strictly greater than score_threshold', async () => {
    const base = await find(alice, { query: 'ERR_CONN_RESET payment' });
    const top = base.body.result.memories[0] as Hit;
    const at = await find(alice, { query: 'ERR_CONN_RESET payment', score_threshold: top.score });
    expect(urisOf(at.body)).not.toContain(top.uri);
    const below = await find(alice, { query: 'ERR_CONN_RESET payment', score_threshold: top.score - 1e-9 });
    expect(urisOf(below.body)).toContain(top.uri);
    expect(hitsOf(below.body).every((h) => h.score > top.score - 1e-9)).toBe(true);
  });

  it('filters by context_type, tags, since/until/time_field and level', async () => {
    const memOnly = await find(alice, { query: 'coffee', context_type: 'memory' });
    expect(memOnly.body.result.resources).toEqual([]);
    expect(memOnly.body.result.skills).toEqual([]);
    expect(memOnly.body.result.memories.length).toBeGreaterThan(0);
    const skillAndRes = await find(alice, { query: 'coffee deploy', context_type: 'SKILL,resource' });
    expect(skillAndRes.body.result.memories).toEqual([]);
    expect(skillAndRes.body.result.skills.length).toBeGreaterThan(0);

    const tagged = await find(alice, { query: 'coffee', tags: ['Topic=Coffee'] });
    expect(urisOf(tagged.body)).toEqual(['viking://user/alice/memories/preferences/coffee.md']);
    expect(tagged.body.result.memories[0].tags).toEqual(['topic=coffee']);
    expect((await find(alice, { query: 'coffee', tags: ['topic=tea'] })).body.result.total).toBe(0);

    const recent = await find(alice, { query: 'coffee', since: '1h' });
    expect(urisOf(recent.body)).toContain('viking://user/alice/memories/preferences/coffee.md');
    expect((await find(alice, { query: 'coffee', until: '2000-01-01' })).body.result.total).toBe(0);
    expect(
      (await find(alice, { query: 'coffee', since: '2999-01-01', time_field: 'created_at' })).body.result.total,
    ).toBe(0);
    const window = await find(alice, {
      query: 'coffee',
      since: '2000-01-01',
      until: '2999-12-31T00:00:00Z',
      time_field: 'created_at',
    });
    expect(window.body.result.total).toBeGreaterThan(0);

    const files = await find(alice, { query: 'guides deploy', level: [2] });
    expect(hitsOf(files.body).every((h) => h.level === 2)).toBe(true);
    const dslLevel = await find(alice, { query: 'guides deploy', filter: { op: 'must', field: 'level', conds: [1] } });
    expect(hitsOf(dslLevel.body).length).toBeGreaterThan(0);
    expect(hitsOf(dslLevel.body).every((h) => h.level === 1 && h.uri.endsWith('/.overview.md'))).toBe(true);
  });

  it('adds provenance and telemetry only when asked', async () => {
    const r = await find(alice, {
      query: 'coffee',
      include_provenance: true,
      telemetry: true,
      target_uri: 'viking://~/memories',
    });
    expect(r.body.result.provenance).toEqual({
      searched_directories: ['viking://user/alice/memories'],
      matched_contexts: urisOf(r.body),
    });
    expect(r.body.telemetry.summary).toMatchObject({ operation: 'search.find', lexical_only: false });
    const plain = await find(alice, { query: 'coffee' });
    expect(plain.body.result.provenance).toBeUndefined();
    expect(plain.body.telemetry).toBeUndefined();
  });

  describe('rejects bad input with the contract envelope', () => {
    const validation: [string, Record<string, unknown>, string][] = [
      [
        'unknown field',
        { query: 'q', bogus: 1 },
        'Invalid request parameters: body.bogus: Extra inputs are not permitted',
      ],
      ['non-string query', { query: 3 }, 'Invalid request parameters: body.query: Input should be a valid string'],
      ['null query', { query: null }, 'Invalid request parameters: body.query: Input should be a valid string'],
      [
        'non-integer limit',
        { query: 'q', limit: 'ten' },
        'Invalid request parameters: body.limit: Input should be a valid integer, unable to parse string as an integer',
      ],
      [
        'fractional node_limit',
        { query: 'q', node_limit: 2.5 },
        'Invalid request parameters: body.node_limit: Input should be a valid integer, got a number with a fractional part',
      ],
      [
        'non-numeric score_threshold',
        { query: 'q', score_threshold: 'high' },
        'Invalid request parameters: body.score_threshold: Input should be a valid number, unable to parse string as a number',
      ],
      [
        'filter not an object',
        { query: 'q', filter: [1] },
        'Invalid request parameters: body.filter: Input should be a valid dictionary',
      ],
      [
        'tags not a list',
        { query: 'q', tags: 'a=b' },
        'Invalid request parameters: body.tags: Input should be a valid list',
      ],
      [
        'time_field not allowed',
        { query: 'q', time_field: 'deleted_at' },
        "Invalid request parameters: body.time_field: Input should be 'updated_at' or 'created_at'",
      ],
      [
        'fractional level',
        { query: 'q', level: 1.5 },
        'Invalid request parameters: body.level: Input should be a valid integer, a string such as "0,2", or a list of integers',
      ],
      [
        'target_uri number',
        { query: 'q', target_uri: 7 },
        'Invalid request parameters: body.target_uri: Input should be a valid string or a list of strings',
      ],
      [
        'include_provenance not boolean',
        { query: 'q', include_provenance: 'maybe' },
        'Invalid request parameters: body.include_provenance: Input should be a valid boolean, unable to interpret input',
      ],
      // Image input is a deliberate difference (docs/contract.md#differences): any image_url is refused by name.
      [
        'image_url with a query',
        { query: 'q', image_url: 'ftp://x/y.png' },
        'Invalid request parameters: body.image_url: Not supported: no configured embedder reads images; send a text query',
      ],
      [
        'image_url alone',
        { image_url: 'data:image/png;base64,iVBORw0KGgo=' },
        'Invalid request parameters: body.image_url: Not supported: no configured embedder reads images; send a text query',
      ],
      [
        'telemetry number',
        { query: 'q', telemetry: 3 },
        'Invalid request parameters: body.telemetry: Input should be a valid boolean or a dictionary',
      ],
    ];
    it.each(validation)('%s → 400 validation envelope (both routes)', async (_name, body, message) => {
      for (const path of [FIND, SEARCH]) {
        const r = await app.request('POST', path, { key: alice, body });
        expect(r.status).toBe(400);
        expect(r.body.status).toBe('error');
        expect(r.body.error.code).toBe('INVALID_ARGUMENT');
        expect(r.body.error.message).toBe(message);
        expect(r.body.error.details.validation_errors[0].loc[0]).toBe('body');
      }
    });

    const domain: [string, Record<string, unknown>, string, string?][] = [
      ['empty body', {}, 'Search query or image_url must not be empty.'],
      ['blank query', { query: '  \n ' }, 'Search query or image_url must not be empty.'],
      [
        'unknown context_type',
        { query: 'q', context_type: 'memories' },
        'context_type must be one or more of: memory, resource, skill',
      ],
      ['malformed tag', { query: 'q', tags: ['lang'] }, "invalid search tag 'lang': expected strict k=v format"],
      [
        'empty tag value',
        { query: 'q', tags: ['a='] },
        "invalid search tag 'a=': key and value must both be non-empty",
      ],
      [
        'unparsable since',
        { query: 'q', since: 'yesterday' },
        "since: Invalid isoformat string: 'yesterday' (expected 30d-style relative, YYYY-MM-DD or ISO-8601)",
      ],
      [
        'inverted range',
        { query: 'q', since: '2026-02-01', until: '2026-01-01' },
        'since must be earlier than or equal to until',
      ],
      [
        'unknown filter field',
        { query: 'q', filter: { op: 'must', field: 'owner', conds: ['x'] } },
        "filter.field 'owner' is not searchable; use one of: uri, parent_uri, context_type, abstract, tags, search_tags, created_at, updated_at, level",
      ],
      [
        'unknown filter op',
        { query: 'q', filter: { op: 'near', field: 'uri' } },
        'filter.op must be one of: and, or, must, must_not, prefix, contains, regex, range, range_out, time_range',
      ],
      [
        'bad time_range value',
        { query: 'q', filter: { op: 'time_range', field: 'updated_at', gte: 'soon' } },
        "filter.gte: Invalid isoformat string: 'soon' (expected 30d-style relative, YYYY-MM-DD or ISO-8601)",
      ],
      [
        'legacy uid-less target',
        { query: 'q', target_uri: 'viking://user/memories' },
        'Invalid URI: viking://user/memories',
        'INVALID_URI',
      ],
    ];
    it.each(domain)(
      '%s → 400 domain envelope (both routes)',
      async (_name, body, message, code = 'INVALID_ARGUMENT') => {
        for (const path of [FIND, SEARCH]) {
          const r = await app.request('POST', path, { key: alice, body });
          expect(r.status).toBe(400);
          expect(r.body).toMatchObject({ status: 'error', result: null, error: { code } });
          expect(r.body.error.message.startsWith(message)).toBe(true);
        }
      },
    );

    it('domain refusals of dates and filters name their field in details.field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ query: 'q', since: '2020-02-30' }, 'since'],
        [{ query: 'q', until: 'later' }, 'until'],
        [{ query: 'q', filter: { op: 'range', field: 'created_at', gte: 'not a date' } }, 'filter.gte'],
        [{ query: 'q', filter: { op: 'must', field: 'uri', conds: [1] } }, 'filter.conds'],
        [
          { query: 'q', filter: { op: 'and', conds: [{ op: 'must', field: 'owner', conds: ['x'] }] } },
          'filter.conds[0].field',
        ],
      ];
      for (const [body, field] of cases) {
        const r = await app.request('POST', FIND, { key: alice, body });
        expect([field, r.status, r.body.error?.details?.field]).toEqual([field, 400, field]);
        expect(r.body.error.message.startsWith(field)).toBe(true);
      }
    });

    it('context-only fields in list mode → 400 naming them', async () => {
      const r = await app.request('POST', SEARCH, {
        key: alice,
        body: { query: 'q', max_tokens: 1000, dedup_turns: 2 },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe(
        "Invalid request parameters: body: Value error, dedup_turns, max_tokens require mode='context'; set mode='context' or drop these fields",
      );
      expect(r.body.error.details.validation_errors[0].loc).toEqual(['body']);
      const onFind = await app.request('POST', FIND, { key: alice, body: { query: 'q', max_tokens: 1000 } });
      expect(onFind.body.error.message).toBe(
        'Invalid request parameters: body.max_tokens: Extra inputs are not permitted',
      );
    });

    it('a non-object JSON body → 400, never 500', async () => {
      for (const raw of ['[1,2]', '"text"', '{bad json']) {
        const r = await app.request('POST', FIND, { key: alice, raw });
        expect(r.status).toBe(400);
        expect(r.body.status).toBe('error');
      }
    });
  });
});

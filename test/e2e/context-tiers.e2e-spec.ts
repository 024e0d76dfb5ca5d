// docs/contract.md#tiers-and-budget: tiers, the body-read policy and the two-phase budget, end to end. Bodies
// and abstracts come from seeded files (a memory file's abstract is its whole body,
// docs/contract.md#tiers-and-sidecars); which
// bodies the assembler read is read back from the `assemble` job's result in Redis.
import { QueueName } from '@app/contracts';
import { eventually, startTestApp, TestApp, TestResponse } from '@app/testing';
import { context, entriesOf, estimateTokens, JobSpy, renderElement, seedMany, usedTokensOf } from './context-support';

const U = 'viking://user/default';
const FILES = { op: 'must', field: 'level', conds: [2] };
/** Files only, and only files matching a query word (lexical weight ≥ 0.6; vector-only neighbours stay below). */
const STRICT = { filter: FILES, score_threshold: 0.25 };
const X300 = 'x'.repeat(300);
const CHATTER = 'the tide came in and we counted the herd again. '.repeat(84).slice(0, 4000);

const A = `${U}/memories/events/heron-pond.md`;
const B = `${U}/memories/entities/heron-statue.md`;
const LAUNCH = `${U}/memories/events/zephyr-launch.md`;
const BLANK = 'viking://resources/blankquill.md';
const GUIDE = 'viking://resources/guidezebu.md';
const GUIDE_BODY = '# Title\n\nintro text\n\n## Body\n\nmore';
const DOSSIER = `${U}/memories/entities/capybara-dossier.md`;
const DOSSIER_GONE = `${U}/memories/entities/vicuna-dossier.md`;
const HUGE = (word: string) => `# Summary\nthe gist\n\n# Notes\n${`${word} notes line. `.repeat(1300)}`.slice(0, 20000);
const CJK = `${U}/memories/entities/tokencjk.md`;

/**
 * docs/contract.md#token-estimate / #stats arithmetic on a response: rendered = the elements joined by \n, used = Σ
 * tokens + separators ≤ budget.
 */
function expectBudgetArithmetic(r: TestResponse) {
  const entries = entriesOf(r);
  const { stats, rendered } = r.body.result;
  expect(rendered).toBe(entries.map(renderElement).join('\n'));
  expect(stats.used_tokens).toBe(usedTokensOf(entries));
  expect(stats.used_tokens).toBeLessThanOrEqual(stats.max_tokens);
  expect(stats.returned).toBe(entries.length);
  // Flat requests without a limit: candidates past the contract's 10 are a reserve and leave the cap alone.
  const primary = stats.quotas ? stats.candidates : Math.min(stats.candidates, 10);
  expect(stats.per_entry_cap).toBe(Math.max(1, Math.floor(stats.max_tokens / Math.max(1, primary)) * 2));
  const tiers: Record<string, number> = {};
  for (const e of entries) tiers[e.detail] = (tiers[e.detail] ?? 0) + 1;
  expect(stats.tier_counts).toEqual(tiers);
}

describe('context tiers and budget', () => {
  let app: TestApp;
  let spy: JobSpy;
  const ask = async (body: Record<string, unknown>) => {
    const r = await context(app, body);
    expect(r.status).toBe(200);
    expectBudgetArithmetic(r);
    return r;
  };
  const one = (r: TestResponse, uri: string) => entriesOf(r).find((e) => e.uri === uri)!;

  beforeAll(async () => {
    app = await startTestApp();
    spy = new JobSpy(app);
    await seedMany(
      app,
      {},
      {
        [A]: `# Summary\nHeron fishing at the pond.\n\n# ChatLog:\n${X300}`,
        [B]: `# Summary\nA heron statue.\n\n# ChatLog:\n${X300}`,
        [LAUNCH]: `# Summary\nShipped X.\n\n# 2026-07-14 ChatLog:\n${'we walked through the release plan line by line. '.repeat(40)}\n<!-- MEMORY_FIELDS {"event_time": "2026-07-14", "k": 1} -->\n`,
        [BLANK]: '',
        [GUIDE]: GUIDE_BODY,
        [DOSSIER]: HUGE('capybara'),
        [DOSSIER_GONE]: HUGE('vicuna'),
        [`${U}/memories/entities/okapi-1.md`]:
          `Okapi one: ${'a forest giraffe relative with striped legs, shy and rarely seen. '.repeat(3)}`.slice(0, 200),
        [`${U}/memories/entities/okapi-2.md`]:
          `Okapi two: ${'a forest giraffe relative with striped legs, shy and rarely seen. '.repeat(3)}`.slice(0, 200),
        [`${U}/memories/entities/okapi-3.md`]:
          `Okapi three: ${'a forest giraffe relative with striped legs, shy and rarely seen. '.repeat(3)}`.slice(
            0,
            200,
          ),
        [`${U}/memories/entities/dugong-a.md`]: 'Dugong twins share this exact sentence.',
        [`${U}/memories/entities/dugong-b.md`]: 'Dugong twins share this exact sentence.',
        [`${U}/memories/events/walrus-log.md`]: `# Summary\nWalrus count done.\n\n# ChatLog:\n${CHATTER}`,
        [CJK]: 'a'.repeat(200),
      },
    );
  });

  afterAll(async () => {
    await spy.close();
    await app.close();
  });

  it('an event and an entity with long chatter fit 1200 tokens without bare URIs', async () => {
    const r = await ask({ query: 'heron pond', max_tokens: 1200, ...STRICT });
    expect(entriesOf(r).map((e) => e.category)).toEqual(['events', 'entities']);
    expect(entriesOf(r).map((e) => e.uri)).toEqual([A, B]);
    expect(entriesOf(r).every((e) => e.detail !== 'uri')).toBe(true);
    expect(r.body.result.rendered.match(/<memory /g)).toHaveLength(2);
    expect(r.body.result.stats.used_tokens).toBeLessThanOrEqual(1200);
  });

  it('with default tiers the event deepens to full, the entity stays abstract; the search carried both bodies, none is read', async () => {
    const since = Date.now();
    const r = await ask({ query: 'heron pond', quotas: { events: 5, entities: 5 }, ...STRICT });
    expect(one(r, A).detail).toBe('full');
    expect(one(r, A).text).toBe(`# Summary\nHeron fishing at the pond.\n\n# ChatLog:\n${X300}`);
    expect(one(r, B)).toMatchObject({ detail: 'abstract', text: `# Summary\nA heron statue.\n\n# ChatLog:\n${X300}` });
    const [job] = await spy.assembles(A, since);
    expect(job.data.candidates.map((c) => [c.baseUri, c.wholeBody])).toEqual([
      [A, true],
      [B, true],
    ]);
    expect(job.result.bodiesRead).toBe(0);
  });

  it('a memory rewritten since its indexing is read from the store: the new body, never the indexed one', async () => {
    const ibis = `${U}/memories/events/ibis-walk.md`;
    const before = `# Summary\nIbis walk at the marsh.\n\n# ChatLog:\n${'we counted ibises along the dyke. '.repeat(6)}`;
    const after = `# Summary\nIbis walk at the marsh, moved to Friday.\n\n# ChatLog:\nthe ibis walk moved to Friday.`;
    await seedMany(app, {}, { [ibis]: before });
    const index = spy.queue(QueueName.Index);
    await index.pause();
    let since = Date.now();
    try {
      const w = await app.request('POST', '/api/v1/content/write', {
        body: { uri: ibis, content: after, mode: 'replace' },
      });
      expect(w.status).toBe(200);
      // Still found by its indexed words, but its abstract is the old body: the assembler reads the new one.
      const r = await ask({ query: 'ibis marsh', max_tokens: 1600, ...STRICT });
      expect(one(r, ibis)).toMatchObject({ detail: 'full', text: after });
      const [job] = await spy.assembles(ibis, since);
      expect(job.data.candidates.find((c) => c.baseUri === ibis)!.wholeBody).toBeUndefined();
      expect(job.result.bodiesRead).toBe(1);
    } finally {
      await index.resume();
    }
    // Once indexed again, the search carries the new body and the assembler reads nothing.
    const { r, job } = await eventually(async () => {
      since = Date.now();
      const r = await ask({ query: 'ibis friday', max_tokens: 1600, ...STRICT });
      const [job] = await spy.assembles(ibis, since);
      return job?.data.candidates.find((c) => c.baseUri === ibis)?.wholeBody ? { r, job } : null;
    });
    expect(one(r, ibis)).toMatchObject({ detail: 'full', text: after });
    expect(job.result.bodiesRead).toBe(0);
  });

  it('a directory overview hit carries its sidecar body: served at overview without a read', async () => {
    const dir = `${U}/memories/events`;
    const found = await app.request('POST', '/api/v1/search/find', {
      body: { query: 'heron', target_uri: `${U}/memories`, level: 1 },
    });
    const hit = found.body.result.memories.find((h: { uri: string }) => h.uri === `${dir}/.overview.md`);
    expect(hit.abstract).toContain('eron');
    const since = Date.now();
    const r = await ask({ query: 'heron', detail: 'overview', filter: { op: 'must', field: 'level', conds: [1] } });
    expect(one(r, dir)).toMatchObject({ detail: 'overview', text: hit.abstract.trim() });
    const [job] = await spy.assembles(dir, since);
    expect([job.data.candidates.find((c) => c.baseUri === dir)!.wholeBody, job.result.bodiesRead]).toEqual([true, 0]);
  });

  it('a directory found by its abstract has its sidecar read when the plan reaches its overview', async () => {
    const dir = `${U}/memories/events`;
    const found = await app.request('POST', '/api/v1/search/find', {
      body: { query: 'heron', target_uri: `${U}/memories`, level: 1 },
    });
    const overview = found.body.result.memories.find((h: { uri: string }) => h.uri === `${dir}/.overview.md`).abstract;
    const since = Date.now();
    const r = await ask({ query: 'heron', filter: { op: 'must', field: 'level', conds: [0] } });
    expect(one(r, dir)).toMatchObject({ detail: 'overview', text: overview.trim() });
    const [job] = await spy.assembles(dir, since);
    const c = job.data.candidates.find((x) => x.baseUri === dir)!;
    expect([c.level, c.wholeBody]).toEqual([0, undefined]);
    expect(job.result.bodiesRead).toBeGreaterThanOrEqual(1);
  });

  it('an event body loses its MEMORY_FIELDS trailer at every tier', async () => {
    for (const max_tokens of [1600, 120]) {
      const r = await ask({ query: 'zephyr launch', max_tokens, ...STRICT });
      const e = one(r, LAUNCH);
      expect(e.detail).toBe(max_tokens === 1600 ? 'full' : 'overview');
      expect(e.text).toContain('Shipped X.');
      expect(e.text).not.toContain('MEMORY_FIELDS');
      expect(r.body.result.rendered).not.toContain('MEMORY_FIELDS');
    }
  });

  it('a resource with an empty abstract is a bare URI, by default and pinned to abstract, and its body is never read', async () => {
    for (const detail of [undefined, 'abstract']) {
      const since = Date.now();
      const r = await ask({ query: 'blankquill', ...STRICT, ...(detail ? { detail } : {}) });
      expect(entriesOf(r)).toEqual([
        { uri: BLANK, category: 'resources', score: expect.any(Number), detail: 'uri', text: '', origin: 'self' },
      ]);
      const [job] = await spy.assembles(BLANK, since);
      expect(job.result.bodiesRead).toBe(0);
    }
  });

  it('a resource is served at its abstract by default, its body when pinned full, its outline when pinned overview', async () => {
    const found = await app.request('POST', '/api/v1/search/find', {
      body: { query: 'guidezebu', target_uri: 'viking://resources', level: 2 },
    });
    const abstract = found.body.result.resources.find((h: { uri: string }) => h.uri === GUIDE).abstract;
    expect(abstract).not.toBe('');
    const byDefault = await ask({ query: 'guidezebu', ...STRICT });
    expect(one(byDefault, GUIDE)).toMatchObject({ detail: 'abstract', text: abstract });
    const full = await ask({ query: 'guidezebu', detail: 'full', ...STRICT });
    expect(one(full, GUIDE)).toMatchObject({ detail: 'full', text: GUIDE_BODY });
    const overview = await ask({ query: 'guidezebu', detail: 'overview', ...STRICT });
    expect(one(overview, GUIDE)).toMatchObject({ detail: 'overview', text: '# Title\n  ## Body\n\nintro text' });
  });

  it('an entity whose abstract is over the cap is served at its summary, its body read once', async () => {
    const since = Date.now();
    const r = await ask({ query: 'capybara', ...STRICT });
    expect(entriesOf(r)).toHaveLength(1);
    expect(one(r, DOSSIER)).toMatchObject({ category: 'entities', detail: 'overview', text: 'the gist' });
    const [job] = await spy.assembles(DOSSIER, since);
    expect(job.result.bodiesRead).toBe(1);
  });

  it('… and as a bare URI when its body cannot be read', async () => {
    const r = await spy.holding(
      QueueName.Assemble,
      1,
      (d) => d.candidates.some((c: { baseUri: string }) => c.baseUri === DOSSIER_GONE),
      () => ask({ query: 'vicuna', ...STRICT }),
      async () => {
        const del = await app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(DOSSIER_GONE)}&wait=true`);
        expect(del.status).toBe(200);
      },
    );
    expect(entriesOf(r)).toEqual([expect.objectContaining({ uri: DOSSIER_GONE, detail: 'uri', text: '' })]);
  });

  it('a plan works over 4 MiB of bodies at most, the best-ranked first; the rest are served without theirs', async () => {
    // 24 memories of ~200 KB: at 32,000 tokens each body may be read up to 256,000 characters, 4.8 MB together.
    const body = (k: number) =>
      Array.from({ length: 5200 }, (_, i) => `pelican ${k} note ${i}: harbor ${(i * 7 + k) % 97} lantern.`)
        .join('\n')
        .slice(0, 200_000);
    const files = Object.fromEntries(
      Array.from({ length: 24 }, (_, k) => [`${U}/memories/events/pelican-${k}.md`, body(k)]),
    );
    await seedMany(app, {}, files);
    const since = Date.now();
    const r = await context(app, { query: 'pelican', max_tokens: 32000, limit: 30, detail: 'overview', filter: FILES });
    expect(r.status).toBe(200);
    // The assembler read the 20 bodies within the total, not the 24 it planned for.
    const [job] = await spy.assembles(`${U}/memories/events/pelican-0.md`, since);
    expect(job.result.bodiesRead).toBe(20);
    const pelicans = entriesOf(r).filter((e) => e.uri.includes('/pelican-'));
    expect(pelicans).toHaveLength(24);
    const byTier = (tier: string) => pelicans.filter((e) => e.detail === tier).length;
    // 4 MiB / ~200 KB: 20 bodies; each served as a query-focused excerpt of its body.
    expect(byTier('overview')).toBe(20);
    for (const e of pelicans.filter((x) => x.detail === 'overview')) expect(e.text).toMatch(/^pelican \d+ note \d+/);
    // The other four have no body in the plan: no overview, so their abstracts (the first 16,000 characters, over
    // the per-entry cap: spare budget gives them back), and they are the lowest-ranked.
    const rest = pelicans.filter((x) => x.detail !== 'overview');
    expect(rest.map((e) => [e.detail, e.text.length <= 16000, e.text.startsWith('pelican ')])).toEqual(
      Array(4).fill(['abstract', true, true]),
    );
    const ranks = pelicans.map((e) => e.detail);
    expect(ranks.lastIndexOf('overview')).toBeLessThan(ranks.indexOf('abstract'));
  });

  it("a request's hits carry 4 MiB of abstracts at most, the best-scored whole, the rest cut", async () => {
    // 60 entities whose abstracts are 16,000 characters (cut from 16,200); six quota buckets make at least six
    // find calls, each carrying at most a sixth of 4 MiB (699,051 characters: 43 such abstracts).
    const body = (k: number) =>
      Array.from({ length: 420 }, (_, i) => `spoonbill ${k} entry ${i}: marsh ${(i * 11 + k) % 89} reed.`)
        .join('\n')
        .slice(0, 16_200);
    await seedMany(
      app,
      {},
      Object.fromEntries(Array.from({ length: 60 }, (_, k) => [`${U}/memories/entities/spoonbill-${k}.md`, body(k)])),
    );
    const since = Date.now();
    const quotas = { entities: 100, events: 1, preferences: 1, experiences: 1, resources: 1, skills: 1 };
    const r = await context(app, { query: 'spoonbill', max_tokens: 32000, quotas, filter: FILES });
    expect(r.status).toBe(200);
    const [job] = await spy.assembles(`${U}/memories/entities/spoonbill-0.md`, since);
    const hits = job!.data.candidates.filter((c) => c.baseUri.includes('/spoonbill-'));
    expect(hits).toHaveLength(60);
    const whole = hits.filter((c) => c.abstract.length > 1000);
    const cut = hits.filter((c) => c.abstract.length <= 1000);
    expect(whole.length * 16000).toBeLessThanOrEqual(Math.ceil((4 * 1024 * 1024) / 6));
    expect(cut.length).toBeGreaterThanOrEqual(60 - 43);
    expect(cut.every((c) => c.abstract.endsWith('…') && !c.wholeBody)).toBe(true);
    const lowestWhole = Math.min(...whole.map((c) => c.score));
    expect(cut.every((c) => c.score <= lowestWhole)).toBe(true);
  });

  it('three ~200-char entities in 64 tokens → bare URIs or abstracts, at least one dropped, never over budget', async () => {
    const r = await ask({ query: 'okapi', max_tokens: 64, ...STRICT });
    const { stats } = r.body.result;
    expect(stats.candidates).toBe(3);
    expect(stats.returned + stats.dropped).toBe(3);
    expect(stats.dropped).toBeGreaterThanOrEqual(1);
    expect(stats.used_tokens).toBeLessThanOrEqual(64);
    expect(stats.per_entry_cap).toBe(42);
    for (const e of entriesOf(r)) expect(['uri', 'abstract']).toContain(e.detail);
  });

  it('two hits with identical text → one entry, deduped 1', async () => {
    const r = await ask({ query: 'dugong', ...STRICT });
    expect(r.body.result.stats.candidates).toBe(2);
    expect(entriesOf(r)).toHaveLength(1);
    expect(entriesOf(r)[0].text).toBe('Dugong twins share this exact sentence.');
    expect(r.body.result.stats.deduped).toBe(1);
    expect(r.body.result.stats.dropped).toBe(0);
  });

  it('a per-category detail map pins each category and is echoed in stats.detail', async () => {
    const detail = { events: 'abstract', entities: 'full' };
    const r = await ask({ query: 'heron pond', detail, ...STRICT });
    expect(one(r, A).detail).toBe('abstract');
    expect(one(r, B).detail).toBe('full');
    expect(r.body.result.stats.detail).toEqual(detail);
  });

  it('a 4000-char event is served full in 1600 tokens and at its summary in 200', async () => {
    const wide = await ask({ query: 'walrus', max_tokens: 1600, ...STRICT });
    const full = entriesOf(wide)[0];
    expect(full).toMatchObject({ uri: `${U}/memories/events/walrus-log.md`, detail: 'full' });
    expect(full.text.endsWith(CHATTER.trim())).toBe(true);
    expect(wide.body.result.stats.used_tokens).toBeGreaterThan(1000);
    const narrow = await ask({ query: 'walrus', max_tokens: 200, ...STRICT });
    expect(entriesOf(narrow)[0]).toMatchObject({ detail: 'overview', text: 'Walrus count done.' });
  });

  it('the same entry with 200×"a" and 200×"中" costs exactly 250 tokens more in CJK', async () => {
    const ascii = await ask({ query: 'tokencjk', ...STRICT });
    expect(entriesOf(ascii)).toEqual([
      expect.objectContaining({ uri: CJK, detail: 'abstract', text: 'a'.repeat(200) }),
    ]);
    const w = await app.request('POST', '/api/v1/content/write', {
      body: { uri: CJK, content: '中'.repeat(200), mode: 'replace', wait: true },
    });
    expect(w.status).toBe(200);
    const cjk = await ask({ query: 'tokencjk', ...STRICT });
    expect(entriesOf(cjk)).toEqual([expect.objectContaining({ uri: CJK, detail: 'abstract', text: '中'.repeat(200) })]);
    expect(cjk.body.result.stats.used_tokens - ascii.body.result.stats.used_tokens).toBe(250);
    expect(estimateTokens('中'.repeat(200)) - estimateTokens('a'.repeat(200))).toBe(250);
  });

  it('used_tokens is the element estimates plus separators on a mixed block, and the budget holds at every size', async () => {
    for (const max_tokens of [64, 100, 300, 800, 1600]) {
      const r = await ask({ query: 'heron pond walrus okapi dugong guidezebu blankquill', max_tokens, filter: FILES });
      expect(r.body.result.stats.candidates).toBeGreaterThanOrEqual(8);
      if (max_tokens === 1600) expect(r.body.result.stats.returned).toBeGreaterThanOrEqual(5);
    }
  });
});

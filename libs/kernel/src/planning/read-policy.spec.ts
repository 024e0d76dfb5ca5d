import { candidate as cand } from '../testing/candidate';
import { entryTokens } from '../render/render-entry';
import { pyStrip } from '../text/py-text';
import { entryFor } from './assembled-entry';
import { normalizeDetail, NO_PINS } from '../tiering/detail-pins';
import { contentUriFor } from '../tiering/tier-text';
import { planEntries } from './plan-entries';
import { estimateTokens } from '../budget/token-estimate';
import {
  BODY_READ_MAX_CHARS,
  BODY_READ_MIN_CHARS,
  bodiesWithinTotal,
  bodyReadChars,
  callAbstractChars,
  CUT_HIT_ABSTRACT_CHARS,
  cutHitAbstracts,
  HIT_ABSTRACT_MAX_CHARS,
  needsBody,
  oversizedAbstractNeedsBody,
  PLAN_BODY_MAX_CHARS,
  planContentReads,
} from './read-policy';
import { assembleBlock, carriedBodies, planBlockReads, planBodies } from './assemble-block';

const U = 'viking://user/test_user';

const eventBody = (gist: string, filler: string) => `# Summary\n${gist}\n\n# ChatLog:\n${filler}`;

describe('planEntries: mechanics', () => {
  it('keeps placing after a drop (no early stop)', () => {
    const big = cand(`viking://resources/${'b'.repeat(200)}`, 'resources', { score: 0.9, abstract: 'big' });
    const small = cand('viking://resources/s.md', 'resources', { score: 0.5, abstract: 'ok' });
    const { entries, stats } = planEntries({ candidates: [big, small], contents: new Map(), maxTokens: 30 });
    expect(stats.dropped).toBe(1);
    expect(entries.map((e) => e.uri)).toEqual(['viking://resources/s.md']);
  });

  it('spare pass spends leftover budget past the cap on the best-ranked event', () => {
    const a = cand(`${U}/memories/events/a.md`, 'events', { score: 0.9, abstract: 'a' });
    const rest = [1, 2, 3].map((i) =>
      cand(`viking://resources/r${i}.md`, 'resources', { score: 0.5, abstract: `resource ${i}` }),
    );
    const contents = new Map([[a.baseUri, eventBody('A', 'a'.repeat(2000))]]);
    const { entries, stats } = planEntries({ candidates: [a, ...rest], contents, maxTokens: 800 });
    expect(stats.perEntryCap).toBe(400);
    expect(entries[0]!.tokens).toBeGreaterThan(400);
    expect(entries.map((e) => e.detail)).toEqual(['full', 'abstract', 'abstract', 'abstract']);
    expect(stats.fill).toEqual({
      floorTokens: stats.fill.floorTokens,
      overviewUpgrades: 0,
      fullUpgrades: 0,
      spareUpgrades: 1,
    });
    expect(stats.usedTokens).toBeLessThanOrEqual(800);
  });

  it('directories are served from their overview sidecar and never deepen', () => {
    const dir = cand(`${U}/memories/entities`, 'entities', {
      uri: `${U}/memories/entities/.abstract.md`,
      isDirectory: true,
      level: 0,
    });
    const sidecar = '---\ndirectory: viking://user/test_user/memories/entities/\n---\nPeople and projects.\n';
    const pins = normalizeDetail('full');
    const reads = planContentReads([dir], 3200, pins).map((read) => read.uri);
    expect(reads).toEqual([`${U}/memories/entities/.overview.md`]);
    expect(contentUriFor(dir)).toBe(reads[0]);
    const { entries } = planEntries({
      candidates: [dir],
      contents: new Map([[reads[0]!, sidecar]]),
      maxTokens: 1600,
      pins,
    });
    expect(entries.map((e) => [e.uri, e.detail, e.text])).toEqual([
      [`${U}/memories/entities`, 'overview', 'People and projects.'],
    ]);
  });

  it('maxTokens below one is treated as one', () => {
    const { stats } = planEntries({
      candidates: [cand('viking://resources/r', 'resources')],
      contents: new Map(),
      maxTokens: 0,
    });
    expect(stats.maxTokens).toBe(1);
    expect(stats.dropped).toBe(1);
  });
});

describe('read policy', () => {
  it.each([
    {
      name: 'event with default tiers',
      c: cand(`${U}/memories/events/a.md`, 'events', { abstract: 'a' }),
      pins: NO_PINS,
      read: true,
    },
    {
      name: 'entity with a short abstract',
      c: cand(`${U}/memories/entities/a.md`, 'entities', { abstract: 'a' }),
      pins: NO_PINS,
      read: false,
    },
    {
      name: 'entity with no abstract substitutes its overview',
      c: cand(`${U}/memories/entities/a.md`, 'entities'),
      pins: NO_PINS,
      read: true,
    },
    {
      name: 'entity pinned full',
      c: cand(`${U}/memories/entities/a.md`, 'entities', { abstract: 'a' }),
      pins: normalizeDetail('full'),
      read: true,
    },
    {
      name: 'event pinned abstract',
      c: cand(`${U}/memories/events/a.md`, 'events', { abstract: 'a' }),
      pins: normalizeDetail({ events: 'abstract' }),
      read: false,
    },
    {
      name: 'resource default',
      c: cand('viking://resources/a', 'resources', { abstract: 'a' }),
      pins: NO_PINS,
      read: false,
    },
    {
      name: 'resource pinned overview',
      c: cand('viking://resources/a', 'resources', { abstract: 'a' }),
      pins: normalizeDetail('overview'),
      read: true,
    },
    {
      name: 'skill with an oversized abstract',
      c: cand('viking://agent/skills/s', 'skills', { abstract: 's'.repeat(9000) }),
      pins: NO_PINS,
      read: false,
    },
    {
      name: 'directory',
      c: cand('viking://resources/docs', 'resources', { isDirectory: true }),
      pins: NO_PINS,
      read: true,
    },
  ])('$name', ({ c, pins, read }) => {
    expect(needsBody(c, 1600, pins)).toBe(read);
  });

  it('reads each content URI once, other peers with the open context', () => {
    const peer = cand(`${U}/peers/bob/memories/events/e.md`, 'events', { origin: 'other_peer', abstract: 'p' });
    const dirA = cand('viking://resources/docs', 'resources', {
      isDirectory: true,
      uri: 'viking://resources/docs/.abstract.md',
    });
    const dirB = { ...dirA, uri: 'viking://resources/docs/.overview.md' };
    expect(planContentReads([peer, dirA, dirB], 1000)).toEqual([
      { uri: peer.baseUri, openContext: true },
      { uri: 'viking://resources/docs/.overview.md', openContext: false },
    ]);
  });
});

describe('oversizedAbstractNeedsBody', () => {
  // The unrendered shortcut (a text over 4 × cap UTF-16 units) answers as rendering and estimating would.
  const byRendering = (c: ReturnType<typeof cand>, cap: number) => {
    const text = pyStrip(c.abstract);
    return text !== '' && entryTokens(entryFor(c, 'abstract', text)) > cap;
  };
  // Mostly narrow text, some wide, astral, lone-surrogate and tag pieces.
  const PIECES = ['kestrel ', 'hover ', 'at dawn. ', '<memory ', '</Memory>', '鸟', '😀', '\ud800', 'é', '\t', ' '];

  it('agrees with the rendered estimate for any abstract and cap (2,000 seeded cases)', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let over = 0;
    for (let i = 0; i < 2000; i++) {
      // Abstracts of 2 to 5 × cap units: the shortcut's bound (4 × cap) and the rendered estimate's both fall there.
      const cap = 1 + next(400);
      const units = Math.floor((cap * (200 + next(300))) / 100);
      let abstract = '';
      while (abstract.length < units) abstract += next(8) ? PIECES[next(3)] : PIECES[3 + next(PIECES.length - 3)];
      const c = cand(`${U}/memories/events/e${i}.md`, 'events', { abstract });
      const expected = byRendering(c, cap);
      expect(oversizedAbstractNeedsBody(c, cap)).toBe(expected);
      if (expected) over++;
    }
    // Both answers occur, and some near the bound: not a test of one side only.
    expect(over).toBeGreaterThan(200);
    expect(over).toBeLessThan(1800);
  });
});

describe('bodyReadChars', () => {
  it('reads at least the floor, and always more than any budget could serve at full', () => {
    expect(bodyReadChars(64)).toBe(BODY_READ_MIN_CHARS);
    expect(bodyReadChars(250000)).toBe(BODY_READ_MAX_CHARS);
    for (const maxTokens of [64, 800, 1600, 3200, 8191, 32000]) {
      const read = bodyReadChars(maxTokens);
      // The cheapest text there is (a quarter token a character) cut at the read bound is still over budget.
      expect(estimateTokens(' '.repeat(read))).toBeGreaterThan(maxTokens);
      expect(estimateTokens('a'.repeat(read))).toBeGreaterThan(maxTokens);
    }
  });
});

describe('bodies the search carries', () => {
  const U = 'viking://user/u/memories/events';
  const whole = cand(`${U}/a.md`, 'events', { score: 0.9, abstract: 'Heron at the pond.', wholeBody: true });
  const plain = cand(`${U}/b.md`, 'events', { score: 0.8, abstract: 'Heron statue.' });
  const long = cand(`${U}/c.md`, 'events', { score: 0.7, abstract: 'x'.repeat(70000), wholeBody: true });

  it('serves a whole-body abstract as the body and reads only the others', () => {
    const dir = cand('viking://user/u/memories/events', 'events', {
      uri: 'viking://user/u/memories/events/.overview.md',
      level: 1,
      isDirectory: true,
      abstract: 'Events: heron, statue.',
      wholeBody: true,
    });
    const req = { candidates: [whole, plain, long, dir], maxTokens: 1600, detail: null };
    expect([...carriedBodies(req)]).toEqual([
      [whole.baseUri, 'Heron at the pond.'],
      ['viking://user/u/memories/events/.overview.md', 'Events: heron, statue.'],
    ]);
    // Over what an assembly reads of a body (bodyReadChars(1600) = 65,536), it is read and cut as before.
    expect(planBlockReads(req).map((r) => r.uri)).toEqual([plain.baseUri, long.baseUri]);
  });

  it("an earlier turn's entry whose body the search carried is not read either", () => {
    const seen = [{ candidate: whole, detail: 'full' as const }];
    const req = { candidates: [plain], maxTokens: 1600, detail: null, seen };
    expect(planBlockReads(req).map((r) => r.uri)).toEqual([plain.baseUri]);
    expect(carriedBodies(req).get(whole.baseUri)).toBe('Heron at the pond.');
  });

  it('the block is the one the read bodies would have given', () => {
    const body = 'Heron at the pond.';
    const req = { candidates: [whole, plain], maxTokens: 1600, detail: null, query: 'heron' };
    const asIfRead = assembleBlock(
      { ...req, candidates: [{ ...whole, wholeBody: undefined }, plain] },
      new Map([[whole.baseUri, body]]),
    );
    expect(assembleBlock(req, carriedBodies(req))).toEqual(asIfRead);
  });
});

describe('bodiesWithinTotal / planBodies (docs/limits-and-security.md, "Work per byte")', () => {
  const mem = (i: number, score: number) => cand(`${U}/memories/events/m${i}.md`, 'events', { score });
  const bodies = (sizes: number[]) =>
    new Map(sizes.map((n, i) => [`${U}/memories/events/m${i}.md`, `${i} `.repeat(n / 2).slice(0, n)]));

  it('hands the same bodies back when they are within the total', () => {
    const contents = bodies([1000, 2000]);
    expect(bodiesWithinTotal([mem(0, 0.9), mem(1, 0.5)], contents, 3000)).toBe(contents);
  });

  it('keeps the best-ranked bodies within the total, skips what does not fit, the first always', () => {
    const contents = bodies([600, 500, 300, 100]);
    // Rank order m1, m0, m2, m3: m1 (500) + m0 (600) fit 1,200; m2 (300) would make 1,400; m3 (100) still fits.
    const ranked = [mem(1, 0.9), mem(0, 0.8), mem(2, 0.7), mem(3, 0.6)];
    expect([...bodiesWithinTotal(ranked, contents, 1200).keys()].map((u) => u.slice(-5))).toEqual([
      'm1.md',
      'm0.md',
      'm3.md',
    ]);
    // A first body over the total on its own is still kept (each body is bounded by bodyReadChars already).
    expect(bodiesWithinTotal(ranked, contents, 100).size).toBe(1);
    // Bodies of no ranked candidate are left out once the total binds.
    expect(bodiesWithinTotal([mem(3, 0.9)], contents, 1000).size).toBe(1);
  });

  it('plans over the total: the candidates past it are served from their abstracts', () => {
    const big = PLAN_BODY_MAX_CHARS / 4 - 10; // four fit, the fifth does not
    const sizes = [big, big, big, big, big];
    const contents = bodies(sizes);
    const candidates = sizes.map((_, i) => ({ ...mem(i, 1 - i / 10), abstract: `m${i} abstract` }));
    const req = { candidates, maxTokens: 32000, detail: 'overview', query: 'note' };
    expect(planBodies(req, contents).size).toBe(4);
    const block = assembleBlock(req, planBodies(req, contents));
    expect(block.entries.map((e) => e.detail)).toEqual(['overview', 'overview', 'overview', 'overview', 'abstract']);
    expect(block.entries[4]!.text).toBe('m4 abstract');
  });
});

describe('cutHitAbstracts / callAbstractChars (docs/limits-and-security.md, "Work per byte")', () => {
  const words = (n: number, w: string) => `${w} `.repeat(n / (w.length + 1)).trim();
  const hit = (score: number, abstract: string, wholeBody = true) => ({
    score,
    abstract,
    ...(wholeBody ? { wholeBody: true as const } : {}),
  });

  it('keeps the best-scored abstracts within the total and cuts the rest, which then carry no body', () => {
    // Given out of score order, as the three lists of a find result are.
    const low = hit(0.2, words(5000, 'low'));
    const best = hit(0.9, words(5000, 'best'));
    const mid = hit(0.5, words(5000, 'mid'));
    const small = hit(0.1, 'a short note');
    expect(cutHitAbstracts([low, best, mid, small], 10_000)).toBe(1);
    expect([best.abstract.length, mid.abstract.length]).toEqual([4999, 4999]);
    expect(best.wholeBody).toBe(true);
    expect(low.abstract.length).toBeLessThanOrEqual(CUT_HIT_ABSTRACT_CHARS);
    expect(low.abstract.endsWith('…')).toBe(true);
    expect('wholeBody' in low).toBe(false);
    // An abstract under twice the cut stays whole, body and all: cutting it would cost its body's read.
    expect(small).toEqual(hit(0.1, 'a short note'));
    const near = hit(0.05, words(1990, 'near'));
    expect(cutHitAbstracts([near], 0)).toBe(0);
    expect(near.wholeBody).toBe(true);
  });

  it('splits the total over the calls of a request, never under one memory abstract each', () => {
    expect(callAbstractChars(1)).toBe(HIT_ABSTRACT_MAX_CHARS);
    expect(callAbstractChars(4)).toBe(HIT_ABSTRACT_MAX_CHARS / 4);
    expect(callAbstractChars(10_000)).toBe(16_000);
  });
});

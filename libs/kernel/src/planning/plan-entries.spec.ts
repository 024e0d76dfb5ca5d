import { estimateTokens } from '../budget/token-estimate';
import { renderEntry } from '../render/render-entry';
import { candidate as cand } from '../testing/candidate';
import { Candidate } from '../tiering/candidate';
import { DetailPins, normalizeDetail, NO_PINS } from '../tiering/detail-pins';
import { contentUriFor, normalizeReadContent } from '../tiering/tier-text';
import { perEntryCap } from '../budget/per-entry-cap';
import { planEntries } from './plan-entries';
import { planContentReads } from './read-policy';

const U = 'viking://user/test_user';

/** Read what the policy asks for (failures → ""), then plan: the assembler's steps in miniature. */
function assemble(
  candidates: Candidate[],
  bodies: Record<string, string | Error>,
  maxTokens: number,
  pins: DetailPins = NO_PINS,
) {
  const cap = perEntryCap(maxTokens, candidates.length);
  const reads = planContentReads(candidates, cap, pins);
  const contents = new Map<string, string>();
  for (const read of reads) {
    const body = bodies[read.uri];
    const owner = candidates.find((c) => contentUriFor(c) === read.uri)!;
    contents.set(read.uri, typeof body === 'string' ? normalizeReadContent(owner, body) : '');
  }
  const plan = planEntries({ candidates, contents, maxTokens, pins });
  return { ...plan, reads: reads.map((r) => r.uri) };
}

const eventBody = (gist: string, filler: string) => `# Summary\n${gist}\n\n# ChatLog:\n${filler}`;

describe('planEntries: worked examples of planning', () => {
  it('six entities with short abstracts all fit at abstract', () => {
    const cs = Array.from({ length: 6 }, (_, i) =>
      cand(`${U}/memories/entities/e${i}.md`, 'entities', { abstract: `entity number ${i}` }),
    );
    const { entries, stats } = assemble(cs, {}, 1600);
    expect(entries.map((e) => e.detail)).toEqual(Array(6).fill('abstract'));
    expect(stats.dropped).toBe(0);
  });

  it('events with a summary and 200-300 chars of filler deepen to full', () => {
    const cs = [0, 1, 2].map((i) =>
      cand(`${U}/memories/events/e${i}.md`, 'events', { abstract: `abs ${i}`, score: 0.6 - i / 10 }),
    );
    const bodies = Object.fromEntries(cs.map((c, i) => [c.baseUri, eventBody(`gist ${i}`, 'y'.repeat(200 + i * 50))]));
    const { entries } = assemble(cs, bodies, 1600);
    expect(entries.filter((e) => e.detail === 'full').length).toBeGreaterThanOrEqual(1);
  });

  it('a 40 000-char event stays at its summary while a small one deepens (800 budget)', () => {
    const a = cand(`${U}/memories/events/a.md`, 'events', { score: 0.95, abstract: 'a' });
    const b = cand(`${U}/memories/events/b.md`, 'events', { score: 0.9, abstract: 'b' });
    const { entries } = assemble(
      [a, b],
      { [a.baseUri]: eventBody('the A summary', 'z'.repeat(40000)), [b.baseUri]: eventBody('B', 'small body') },
      800,
    );
    expect(entries.map((e) => [e.uri, e.detail, e.text])).toEqual([
      [a.baseUri, 'overview', 'the A summary'],
      [b.baseUri, 'full', eventBody('B', 'small body')],
    ]);
  });

  it.each([
    { name: '1600 budget → full (~1038 tokens)', maxTokens: 1600, detail: 'full', low: 1000, high: 1100 },
    { name: '200 budget → overview', maxTokens: 200, detail: 'overview', low: 1, high: 200 },
  ])('single low-score event with 4000 chars of chatter: $name', ({ maxTokens, detail, low, high }) => {
    const c = cand(`${U}/memories/events/solo.md`, 'events', { score: 0.02, abstract: 'solo' });
    const { entries, stats } = assemble(
      [c],
      { [c.baseUri]: `# Summary\nShipped X.\n\n# 2026-07-14 ChatLog:\n${'c'.repeat(4000)}` },
      maxTokens,
    );
    expect(entries.map((e) => e.detail)).toEqual([detail]);
    expect(stats.usedTokens).toBe(entries[0]!.tokens);
    expect(stats.usedTokens).toBeGreaterThanOrEqual(low);
    expect(stats.usedTokens).toBeLessThanOrEqual(high);
  });

  it('an entity with a 20 000-char abstract and no readable body is served bare, next to a tiny one', () => {
    const huge = cand(`${U}/memories/entities/huge.md`, 'entities', { abstract: 'h'.repeat(20000), score: 0.9 });
    const tiny = cand(`${U}/memories/entities/tiny.md`, 'entities', { abstract: 'tiny', score: 0.8 });
    const { entries, stats, reads } = assemble([huge, tiny], {}, 1600);
    expect(reads).toEqual([huge.baseUri]);
    expect(entries.map((e) => e.detail)).toEqual(['uri', 'abstract']);
    expect(stats.usedTokens).toBeLessThanOrEqual(1600);
  });

  it.each([
    {
      name: 'readable summary → overview',
      body: '# Summary\nthe gist\n\n# Detail\n' + 'd'.repeat(500),
      detail: 'overview',
      text: 'the gist',
    },
    { name: 'failed read → uri', body: new Error('EIO'), detail: 'uri', text: '' },
  ])('entity with a 20 000-char abstract: $name', ({ body, detail, text }) => {
    const c = cand(`${U}/memories/entities/big.md`, 'entities', { abstract: 'w'.repeat(20000) });
    const { entries, reads } = assemble([c], { [c.baseUri]: body }, 1600);
    expect(reads).toEqual([c.baseUri]);
    expect(entries.map((e) => [e.detail, e.text])).toEqual([[detail, text]]);
  });

  it('three entities with ~200-char abstracts at 60 tokens: two bare URIs, one dropped, 55 used', () => {
    const cs = [0, 1, 2].map((i) =>
      cand(`${U}/memories/entities/e${i}.md`, 'entities', {
        abstract: `entity ${i} `.repeat(20),
        score: 0.5 - i / 100,
      }),
    );
    const { entries, stats } = assemble(cs, {}, 60);
    expect(stats.perEntryCap).toBe(40);
    expect(entries.map((e) => e.detail)).toEqual(['uri', 'uri']);
    expect(stats.dropped).toBe(1);
    expect(stats.usedTokens).toBe(55);
  });

  it('spare budget gives the best-ranked entry its abstract back when only the cap made it a bare URI', () => {
    // 10 candidates at 300 tokens: a cap of 60. The best hit's 70-token abstract is over it, the nine short
    // ones leave room: it used to stay a bare URI above nine served abstracts.
    const first = cand(`${U}/memories/entities/postgres.md`, 'entities', {
      abstract: 'The billing service moved to Postgres 16 on 2026-11-20; rollback plan in runbooks/billing.md. '.repeat(
        3,
      ),
      score: 0.9,
    });
    const rest = Array.from({ length: 9 }, (_, i) =>
      cand(`${U}/memories/entities/e${i}.md`, 'entities', { abstract: `entity ${i}`, score: 0.5 - i / 100 }),
    );
    const { entries, stats } = assemble([first, ...rest], {}, 300);
    expect(stats.perEntryCap).toBeLessThan(entries[0]!.tokens);
    expect(entries.map((e) => [e.uri, e.detail])[0]).toEqual([first.baseUri, 'abstract']);
    expect(stats.usedTokens).toBeLessThanOrEqual(300);
  });

  it('three entities with ~200-char abstracts at 64 tokens', () => {
    const cs = [0, 1, 2].map((i) =>
      cand(`${U}/memories/entities/e${i}.md`, 'entities', { abstract: `entity ${i} `.repeat(20) }),
    );
    const { entries, stats } = assemble(cs, {}, 64);
    expect(stats.returned + stats.dropped).toBe(3);
    expect(stats.dropped).toBeGreaterThanOrEqual(1);
    expect(stats.usedTokens).toBeLessThanOrEqual(64);
    expect(entries.every((e) => e.detail === 'uri' || e.detail === 'abstract')).toBe(true);
  });

  it('identical abstracts are served once', () => {
    const cs = [
      cand(`${U}/memories/entities/a.md`, 'entities', { abstract: 'same text' }),
      cand(`${U}/memories/entities/b.md`, 'entities', { abstract: 'same text' }),
    ];
    const { entries, stats } = assemble(cs, {}, 1600);
    expect(entries.map((e) => e.uri)).toEqual([`${U}/memories/entities/a.md`]);
    expect(stats.deduped).toBe(1);
    expect(stats.returned).toBe(1);
  });

  it('two bare URIs with the same unshown abstract are still two entries', () => {
    const cs = [cand('viking://resources/a.md', 'resources'), cand('viking://resources/b.md', 'resources')];
    const { entries, stats } = assemble(cs, {}, 1600);
    expect(entries.map((e) => e.detail)).toEqual(['uri', 'uri']);
    expect(stats.deduped).toBe(0);
  });

  it.each([
    { name: 'default tier', pins: NO_PINS },
    { name: 'pinned abstract', pins: normalizeDetail('abstract') },
    {
      name: 'resource pinned abstract with an oversized abstract',
      pins: normalizeDetail('abstract'),
      abstract: 'X '.repeat(400),
      maxTokens: 60,
    },
  ])(
    'a resource without a usable abstract is a bare URI and its body is never read: $name',
    ({ pins, abstract, maxTokens }) => {
      const c = cand(`${U}/resources/creds.md`, 'resources', { abstract: abstract ?? '' });
      const { entries, reads } = assemble(
        [c],
        { [c.baseUri]: '# Credentials\n\nTOKEN=secret' },
        maxTokens ?? 1600,
        pins,
      );
      expect(reads).toEqual([]);
      expect(entries.map((e) => [e.detail, e.text])).toEqual([['uri', '']]);
    },
  );

  it.each([
    { name: 'default → abstract', detail: null, out: ['abstract', 'short abstract'] },
    { name: 'pinned full → body', detail: 'full', out: ['full', '# Title\n\nintro text\n\n## Body\n\nmore'] },
    {
      name: 'pinned overview → document outline',
      detail: 'overview',
      out: ['overview', '# Title\n  ## Body\n\nintro text'],
    },
  ])('resource guide: $name', ({ detail, out }) => {
    const c = cand('viking://resources/guide.md', 'resources', { abstract: 'short abstract' });
    const { entries } = assemble(
      [c],
      { [c.baseUri]: '# Title\n\nintro text\n\n## Body\n\nmore' },
      1600,
      normalizeDetail(detail),
    );
    expect([entries[0]!.detail, entries[0]!.text]).toEqual(out);
  });

  it('a memory pinned abstract with an empty abstract starts at its overview', () => {
    const c = cand(`${U}/memories/preferences/p.md`, 'preferences');
    const { entries } = assemble([c], { [c.baseUri]: '# Summary\nprefers tabs\n' }, 1600, normalizeDetail('abstract'));
    expect(entries.map((e) => [e.detail, e.text])).toEqual([['overview', 'prefers tabs']]);
  });

  it('a memory whose abstract is over the cap tries its overview before the bare URI', () => {
    const c = cand(`${U}/memories/entities/a.md`, 'entities', { abstract: 'Y '.repeat(400) });
    const { entries } = assemble([c], { [c.baseUri]: '# Summary\n\nA thing happened.\n\n# Detail\n\nlong body' }, 60);
    expect(entries.map((e) => [e.detail, e.text])).toEqual([['overview', 'A thing happened.']]);
  });
});

describe('planEntries: behaviour', () => {
  it('an event and an entity with summary bodies, 1200 budget (distinct bodies: both served)', () => {
    const body = eventBody('the gist', 'x'.repeat(300));
    const other = eventBody('another gist', 'z'.repeat(300));
    const a = cand(`${U}/memories/events/a.md`, 'events', { score: 0.71, abstract: body });
    const b = cand(`${U}/memories/entities/b.md`, 'entities', { score: 0.55, abstract: other });
    const { entries, stats } = assemble([a, b], { [a.baseUri]: body, [b.baseUri]: other }, 1200);
    expect(entries.map((e) => e.category)).toEqual(['events', 'entities']);
    expect(entries.some((e) => e.detail === 'uri')).toBe(false);
    expect(stats.usedTokens).toBeLessThanOrEqual(1200);
  });

  it('with default tiers only the event body is read', () => {
    const e = cand(`${U}/memories/events/a.md`, 'events', { abstract: 'abs events' });
    const n = cand(`${U}/memories/entities/a.md`, 'entities', { abstract: 'abs entities' });
    const body = '# Summary\ngist\n\n# ChatLog:\nnoise';
    const { entries, reads } = assemble([e, n], { [e.baseUri]: body, [n.baseUri]: body }, 1600);
    expect(reads).toEqual([e.baseUri]);
    expect(entries.map((x) => [x.category, x.detail])).toEqual([
      ['events', 'full'],
      ['entities', 'abstract'],
    ]);
  });

  it('the MEMORY_FIELDS trailer never reaches the text', () => {
    const c = cand(`${U}/memories/events/x.md`, 'events', { abstract: 'x' });
    const raw = `# Summary\nShipped X.\n\n# 2026-07-14 ChatLog:\n${'chatter '.repeat(40)}\n\n<!-- MEMORY_FIELDS\n{"event_time": "2026-07-14"}\n-->`;
    const { entries } = assemble([c], { [c.baseUri]: raw }, 1600);
    expect(entries[0]!.text).toContain('Shipped X.');
    expect(entries[0]!.text).not.toContain('MEMORY_FIELDS');
  });

  it('a per-category map pins each category and is echoed', () => {
    const e = cand(`${U}/memories/events/a.md`, 'events', { abstract: 'event abstract' });
    const n = cand(`${U}/memories/entities/b.md`, 'entities', { abstract: 'entity abstract' });
    const pins = normalizeDetail({ events: 'abstract', entities: 'full' });
    const { entries, stats, reads } = assemble(
      [e, n],
      { [e.baseUri]: '# Summary\ns', [n.baseUri]: 'entity full body' },
      1600,
      pins,
    );
    expect(reads).toEqual([n.baseUri]);
    expect(entries.map((x) => [x.category, x.detail, x.text])).toEqual([
      ['events', 'abstract', 'event abstract'],
      ['entities', 'full', 'entity full body'],
    ]);
    expect(stats.detail).toEqual({ events: 'abstract', entities: 'full' });
  });

  it('CJK costs 250 tokens more than ASCII for the same 200-character abstract', () => {
    const used = (abstract: string) =>
      assemble([cand(`${U}/memories/entities/e.md`, 'entities', { abstract })], {}, 32000).stats.usedTokens;
    expect(used('中'.repeat(200)) - used('a'.repeat(200))).toBe(250);
  });

  it('used_tokens is the sum of rendered element estimates plus one per separator', () => {
    const cs = [
      cand(`${U}/memories/events/a.md`, 'events', { score: 0.9, abstract: 'a' }),
      cand(`${U}/memories/entities/b.md`, 'entities', { score: 0.8, abstract: 'entity b & <c> "d"' }),
      cand('viking://resources/r.md', 'resources', { score: 0.7 }),
      cand(`${U}/memories/preferences/p.md`, 'preferences', { score: 0.6, abstract: '好的 <memory>' }),
    ];
    const { entries, stats } = assemble(cs, { [cs[0]!.baseUri]: eventBody('gist', 'q'.repeat(900)) }, 300);
    const expected = entries.reduce((sum, e) => sum + estimateTokens(renderEntry(e)), 0) + entries.length - 1;
    expect(stats.usedTokens).toBe(expected);
    expect(stats.usedTokens).toBeLessThanOrEqual(300);
    expect(entries.map((e) => e.tokens)).toEqual(entries.map((e) => estimateTokens(renderEntry(e))));
  });

  it('stats example: three event hits, 330-char bodies, 1600 budget', () => {
    const cs = ['a', 'b', 'c'].map((name, i) =>
      cand(`${U}/memories/events/${name}.md`, 'events', { abstract: `abs ${name}`, score: [0.62, 0.55, 0.41][i]! }),
    );
    const bodies = Object.fromEntries(
      ['a', 'b', 'c'].map((name) => [`${U}/memories/events/${name}.md`, eventBody(`gist ${name}`, 'x'.repeat(300))]),
    );
    const { stats } = assemble(cs, bodies, 1600);
    expect(stats).toEqual({
      maxTokens: 1600,
      usedTokens: 332,
      perEntryCap: 1066,
      returned: 3,
      dropped: 0,
      deduped: 0,
      redundant: 0,
      weak: 0,
      detail: null,
      tierCounts: { full: 3 },
      fill: { floorTokens: 95, overviewUpgrades: 0, fullUpgrades: 3, spareUpgrades: 0 },
    });
  });

  it('no candidates still reports the budget', () => {
    expect(planEntries({ candidates: [], contents: new Map(), maxTokens: 1600 }).stats).toEqual({
      maxTokens: 1600,
      usedTokens: 0,
      perEntryCap: 3200,
      returned: 0,
      dropped: 0,
      deduped: 0,
      redundant: 0,
      weak: 0,
      detail: null,
      tierCounts: {},
      fill: { floorTokens: 0, overviewUpgrades: 0, fullUpgrades: 0, spareUpgrades: 0 },
    });
  });
});

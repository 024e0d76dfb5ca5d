import { candidate } from '../testing/candidate';
import { Candidate } from '../tiering/candidate';
import { planEntries } from './plan-entries';
import { gists, redundantEntries, shingles } from './redundancy';
import { MAX_SEEN, seenEntries } from './seen-entries';

const U = 'viking://user/default';

const cand = (baseUri: string, over: Partial<Candidate> = {}) => candidate(baseUri, 'preferences', over);

describe('redundantEntries', () => {
  it('withdraws the lower-ranked of two near-copies, keeps distinct texts', () => {
    const base = 'Melanie painted a lake sunrise last year and it holds a special meaning to her family';
    const out = redundantEntries([
      { text: base, isDirectory: false },
      { text: `${base}.`, isDirectory: false },
      { text: 'Caroline went to an LGBTQ support group and felt accepted there', isDirectory: false },
    ]);
    expect([...out]).toEqual([1]);
  });

  it('a text contained in a longer served one is redundant, the longer one is not', () => {
    const turn = '[D1:3] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.';
    const out = redundantEntries([
      {
        text: `# Summary\nsession 1\n# ChatLog:\n[D1:2] Melanie: hi there\n${turn}\n[D1:4] Melanie: wow`,
        isDirectory: false,
      },
      { text: `- ${turn}`, isDirectory: false },
    ]);
    expect([...out]).toEqual([1]);
  });

  it('a directory overview that only lists a served memory is redundant; one listing unserved ones is not', () => {
    const memory = 'Prefers vim keybindings and dark themes.';
    const listing = `# preferences\n\n1 item in ${U}/memories/preferences.\n\n- vim.md: ${memory}`;
    const root = `# default\n\n1 item in ${U}.\n\n- memories/: memories: 1 item — preferences: 1 item — ${memory}`;
    expect(
      [
        ...redundantEntries([
          { text: memory, isDirectory: false },
          { text: listing, isDirectory: true },
          { text: root, isDirectory: true },
        ]),
      ].sort(),
    ).toEqual([1, 2]);
    const rich = `# preferences\n\n3 items in ${U}/memories/preferences.\n\n- a.md: ${memory}\n- b.md: Uses tmux with a green status bar\n- c.md: Writes commit messages in the imperative mood`;
    expect(
      redundantEntries([
        { text: memory, isDirectory: false },
        { text: rich, isDirectory: true },
      ]).size,
    ).toBe(0);
  });

  it("a directory's summary lines (dates, topics) are derived from its children, not content of its own", () => {
    const a = 'Melanie went camping with the kids at the lake.';
    const b = 'Melanie made pottery; the kids painted bowls.';
    const dir =
      `# events\n\n2 items in ${U}/memories/events.\n\nDates: 2023-05-08 to 2023-07-17.\nTopics: kids, melanie.\n\n` +
      `- 2023-05-08-camping.md: ${a}\n- 2023-07-17-pottery.md: ${b}`;
    const root = `# memories\n\n1 item in ${U}/memories.\n\n- events/: events: 2 items (2023-05-08 to 2023-07-17; kids, melanie) — ${a}`;
    const out = redundantEntries([
      { text: a, isDirectory: false },
      { text: b, isDirectory: false },
      { text: dir, isDirectory: true },
      { text: root, isDirectory: true },
    ]);
    expect([...out].sort()).toEqual([2, 3]);
  });

  it('a nested abstract that names its children bare (no abstracts of their own yet) is scaffolding too', () => {
    const event =
      '# Summary\nWednesday 2 December 2026, user and assistant.\n[user]: I just moved to Lisbon last week.';
    const root =
      `# default\n\n2 items in viking://user/default.\n\nDates: 2026-12-02.\n\n` +
      `- memories/: memories: 3 items (2026-12-02) — entities; events; preferences: 2 items (2026-12-02) — default: 1 item — #…\n- sessions/`;
    expect(shingles(root, true).size).toBe(0);
    // Abstracts cut at their length limit keep the scaffolding's shape: `entities: 1…`, `(2026-12-02; user,…`.
    expect(
      shingles(
        'default: 2 items (2026-12-02) — memories: 3 items (2026-12-02; item, user) — entities: 1…; sessions',
        true,
      ).size,
    ).toBe(0);
    expect(shingles('- entities/: entities: 1 item — mentioned: 3 items (2026-12-02; user,…', true).size).toBe(0);
    // What a listing leaves of a gist cut to one word is no content either.
    const events = 'events: 1 item — 2026: 1 item — 12: 1 item — 02: 1 item — # Summary…';
    expect([
      ...redundantEntries([
        { text: event, isDirectory: false },
        { text: events, isDirectory: true },
      ]),
    ]).toEqual([1]);
    expect([
      ...redundantEntries([
        { text: event, isDirectory: false },
        { text: root, isDirectory: true },
      ]),
    ]).toEqual([1]);
    // A gist of several words is content: `— Ann adopted a greyhound; bar` keeps its words.
    expect(shingles('- a/: a: 2 items — Ann adopted a greyhound; bar', true)).toEqual(
      new Set(['ann adopted a', 'adopted a greyhound']),
    );
  });

  it('a quote of a served event part is redundant although its message id is new (the MCP remember case)', () => {
    const said = 'I moved from Berlin to Lisbon in March 2026 and now work remotely for Acme billing.';
    const event =
      `# Summary\nWednesday 2 December 2026, user and assistant.\n[user]: ${said}\n` +
      '# 2026-12-02 (Wednesday) ChatLog:\n[assistant]: Noted, Lisbon it is.';
    const quote = (name: string) => `# ${name}\n- 2026-12-02 [user]: ${said} (msg_1dbd1832857941b884e9099fc4de5662)`;
    const mentioned =
      'mentioned: 3 items (2026-12-02; acme, berlin, billing, lisbon, march, moved, remotely) — ' +
      '# Acme - 2026-12-02 [user]: I moved from Berlin to Lisbon…; # Berlin - 2026-12-02 [user]: I moved from Berlin to…; # Lisbon -…';
    const out = redundantEntries([
      { text: event, isDirectory: false },
      { text: quote('Acme'), isDirectory: false },
      { text: quote('Berlin'), isDirectory: false },
      { text: mentioned, isDirectory: true },
    ]);
    expect([...out].sort()).toEqual([1, 2, 3]);
    // The id is no content, the words around it are: `python3` and a short hex stay.
    expect(shingles('uses python3 and git sha 1a2b')).toEqual(
      new Set(['uses python3 and', 'python3 and git', 'and git sha', 'git sha 1a2b']),
    );
    expect(shingles('(msg_1dbd1832857941b884e9099fc4de5662)').size).toBe(0);
    // Gists are shingled one by one; one cut to less than a shingle says nothing, a whole short one does.
    expect(shingles('d: 2 items — Ann adopted a greyhound…; # Lisbon -…', true)).toEqual(
      new Set(['ann adopted a', 'adopted a greyhound']),
    );
    expect(shingles('d: 2 items — Ann adopted a greyhound; Prefers tea', true)).toEqual(
      new Set(['ann adopted a', 'adopted a greyhound', 'prefers tea']),
    );
  });

  it('files withdrawn earlier still cover a listing that names them; never a file', () => {
    const said = 'Moved from Berlin to Lisbon in March and now works remotely for Acme billing.';
    const event = `# Summary\nWednesday, user and assistant.\n[user]: ${said}`;
    const quote = (name: string) => `# ${name}\n- 2026-12-02 [user]: ${said}`;
    const listing =
      '# mentioned\n\n3 items in viking://user/u/memories/entities/mentioned.\n\n' +
      ['Acme', 'Berlin', 'Lisbon']
        .map((n) => `- ${n.toLowerCase()}.md: # ${n} - 2026-12-02 [user]: ${said}`)
        .join('\n');
    const withdrawn = ['Acme', 'Berlin', 'Lisbon'].map((n) => ({ text: quote(n), isDirectory: false }));
    const items = [
      { text: event, isDirectory: false },
      { text: listing, isDirectory: true },
    ];
    expect(redundantEntries(items).size).toBe(0);
    expect([...redundantEntries(items, withdrawn)]).toEqual([1]);
    // A withdrawn text never makes a served file redundant: of two copies one always stays.
    expect(redundantEntries([{ text: quote('Acme'), isDirectory: false }], withdrawn).size).toBe(0);
  });

  it('a listed name that is an opaque identifier leaves no word of its own behind', () => {
    const listing =
      '# 02\n\n1 item in viking://u/events/2026/12/02.\n\n- mcp_store_250080b8ebdf_archive_001_p1.md: we chose postgres';
    expect([...shingles(listing, true)]).toEqual(['we chose postgres']);
  });

  it('is linear: 2,000 entries of 2,000 characters are checked quickly and correctly', () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({
      text: `entry ${i} ${'w'.repeat(5)} `.repeat(120),
      isDirectory: false,
    }));
    expect(redundantEntries(items).size).toBe(0);
  });

  it('CJK text shingles by character', () => {
    expect(shingles('我喜欢看书').size).toBe(3);
  });
});

describe('planEntries: redundancy', () => {
  it('the README first session: one memory, its directory overviews withdrawn and counted', () => {
    const memory = 'Prefers vim keybindings and dark themes.';
    const file = cand(`${U}/memories/preferences/vim.md`, { abstract: memory, score: 0.5 });
    const dir = cand(`${U}/memories/preferences`, {
      uri: `${U}/memories/preferences/.overview.md`,
      isDirectory: true,
      level: 1,
      score: 0.6,
    });
    const contents = new Map([
      [
        `${U}/memories/preferences/.overview.md`,
        `# preferences\n\n1 item in ${U}/memories/preferences.\n\n- vim.md: ${memory}`,
      ],
    ]);
    const { entries, stats } = planEntries({ candidates: [dir, file], contents, maxTokens: 800 });
    expect(entries.map((e) => e.uri)).toEqual([file.baseUri]);
    expect(stats.redundant).toBe(1);
    expect(stats.returned).toBe(1);
  });

  it('what the last refill round places is checked too: no redundant overview is left at the end', () => {
    // Each round withdraws the one listing that fitted and refills with the next; the last refill used to stay.
    const memory = 'Prefers vim keybindings and dark themes.';
    const file = cand(`${U}/memories/preferences/vim.md`, { abstract: memory, score: 0.9 });
    const dirs = [1, 2, 3, 4, 5].map((i) =>
      cand(`${U}/memories/d${i}`, { uri: `${U}/memories/d${i}/.overview.md`, isDirectory: true, score: 0.5 - i / 100 }),
    );
    const contents = new Map(
      dirs.map((d) => [d.uri, `# ${d.baseUri.slice(-2)}\n\n1 item in ${d.baseUri}.\n\n- vim.md: ${memory}`]),
    );
    // Room for the file and one listing at a time; the listings are reserve candidates (placed in every round).
    const { entries, stats } = planEntries({ candidates: [file, ...dirs], contents, maxTokens: 110, primary: 1 });
    expect(entries.map((e) => e.uri)).toEqual([file.baseUri]);
    expect(stats.redundant).toBe(3);
  });

  it('budget freed by a withdrawn entry is spent on a candidate that did not fit', () => {
    const long =
      'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau '.repeat(3);
    const a = cand(`${U}/memories/preferences/a.md`, { abstract: long, score: 0.9 });
    const b = cand(`${U}/memories/preferences/b.md`, { abstract: `${long} upsilon`, score: 0.8 });
    const c = cand(`${U}/memories/preferences/c.md`, {
      abstract: 'the third fact is short and distinct from the rest',
      score: 0.7,
    });
    const budget = 240; // room for two of the long ones only
    const { entries, stats } = planEntries({ candidates: [a, b, c], contents: new Map(), maxTokens: budget });
    expect(entries.map((e) => e.uri)).toEqual([a.baseUri, c.baseUri]);
    expect(stats.redundant).toBe(1);
    expect(stats.usedTokens).toBeLessThanOrEqual(budget);
  });
});

describe('planEntries: weak candidates', () => {
  it('a candidate under 15% of the best score is not planned: no budget, no share of the cap, explained', () => {
    const fact = 'We decided the billing service will migrate to Postgres 16 next sprint. Maria owns the migration.';
    const best = cand(`${U}/memories/entities/mentioned/postgres.md`, { abstract: fact, score: 0.43 });
    const event = cand(`${U}/memories/events/p1.md`, {
      abstract: 'Maria leads the migration with two engineers from the payments team.',
      score: 0.36,
    });
    // In a small tenant every node is a hit: an unrelated listing and a foreign entity at a twentieth of the best.
    const listing = cand('viking://resources', {
      isDirectory: true,
      abstract: 'The deploy window is Tuesday.',
      score: 0.02,
    });
    const other = cand(`${U}/memories/entities/mentioned/lisbon.md`, { abstract: 'Moved to Lisbon.', score: 0.019 });
    const candidates = [best, event, listing, other];
    const { entries, stats, explain } = planEntries({ candidates, contents: new Map(), maxTokens: 300, explain: true });
    expect(entries.map((e) => e.uri)).toEqual([best.baseUri, event.baseUri]);
    expect(stats.weak).toBe(2);
    // The cap is the budget shared by the two that count, not by four.
    expect(stats.perEntryCap).toBe(
      planEntries({ candidates: [best, event], contents: new Map(), maxTokens: 300 }).stats.perEntryCap,
    );
    expect(explain!.map((e) => e.outcome)).toEqual(['served', 'served', 'weak', 'weak']);
    expect(explain![2]!.why).toContain('weak: score 0.020 is under 15% of the best (0.430)');
    // At exactly the share a candidate stays; with no positive score nothing is weak.
    const edge = cand(`${U}/memories/x.md`, { abstract: 'edge case text', score: 0.43 * 0.15 });
    expect(planEntries({ candidates: [best, edge], contents: new Map(), maxTokens: 300 }).stats.weak).toBe(0);
    const zero = [0, 0].map((score, i) => cand(`${U}/memories/z${i}.md`, { abstract: `z ${i}`, score }));
    expect(planEntries({ candidates: zero, contents: new Map(), maxTokens: 300 }).stats.weak).toBe(0);
  });
});

describe('planEntries: across turns', () => {
  const fact = 'We decided the billing service will migrate to Postgres 16 next sprint. Maria owns the migration.';
  const entity = cand(`${U}/memories/entities/mentioned/postgres.md`, {
    abstract: `# Postgres\n- 2026-12-02 [user]: ${fact}`,
    score: 0.43,
  });
  const event = cand(`${U}/memories/events/p1.md`, {
    abstract: `# Summary\n[user]: ${fact}`,
    score: 0.36,
  });
  const other = cand(`${U}/memories/events/p2.md`, {
    abstract: 'Maria also reviews the rollback plan on Friday.',
    score: 0.3,
  });

  it("an entry repeating what an earlier turn served is redundant; the ledger's tier says what was served", () => {
    const first = planEntries({ candidates: [entity, event, other], contents: new Map(), maxTokens: 800 });
    expect(first.entries.map((e) => e.uri)).toEqual([entity.baseUri, other.baseUri]);
    // Next turn the ledger cools the entity file: without it, its event-part copy would be served again.
    const alone = planEntries({ candidates: [event, other], contents: new Map(), maxTokens: 800 });
    expect(alone.entries.map((e) => e.uri)).toEqual([event.baseUri, other.baseUri]);
    const next = planEntries({
      candidates: [event, other],
      contents: new Map(),
      maxTokens: 800,
      explain: true,
      seen: [{ candidate: entity, detail: 'abstract' }],
    });
    expect(next.entries.map((e) => e.uri)).toEqual([other.baseUri]);
    expect(next.stats.redundant).toBe(1);
    expect(next.explain![0]!.why.at(-1)).toBe(
      'redundant: at least 80% of its text is carried by the other served entries and those served in earlier turns of the session',
    );
    // A full body served earlier covers what its abstract does not; its abstract alone does not.
    const body = `# Summary\n${'Billing history. '.repeat(3)}\n${fact}`;
    const long = cand(`${U}/memories/events/long.md`, { abstract: '# Summary Billing history.', score: 0.5 });
    const contents = new Map([[long.baseUri, body]]);
    const seenAt = (detail: 'abstract' | 'full') =>
      planEntries({ candidates: [event], contents, maxTokens: 800, seen: [{ candidate: long, detail }] }).entries
        .length;
    expect(seenAt('abstract')).toBe(1);
    expect(seenAt('full')).toBe(0);
  });
});

describe('seenEntries', () => {
  it('the cooled hits with the tier the ledger recorded (abstract when unknown), at most MAX_SEEN', () => {
    const a = cand(`${U}/a.md`);
    const b = cand(`${U}/d`, { uri: `${U}/d/.overview.md`, isDirectory: true });
    const c = cand(`${U}/c.md`);
    const ledger = { entries: { [a.baseUri]: { turn: 1, detail: 'full' }, [b.baseUri]: { turn: 1, detail: 'bogus' } } };
    expect(seenEntries([a, b, c], [a.baseUri, b.baseUri], ledger)).toEqual([
      { candidate: a, detail: 'full' },
      { candidate: b, detail: 'abstract' },
    ]);
    const many = Array.from({ length: MAX_SEEN + 5 }, (_, i) => cand(`${U}/m${i}.md`));
    expect(
      seenEntries(
        many,
        many.map((m) => m.baseUri),
        {},
      ),
    ).toHaveLength(MAX_SEEN);
  });
});

describe('planEntries: explain', () => {
  it('one note per candidate, in rank order, with outcome, tiers and reasons', () => {
    const memory = 'Prefers vim keybindings and dark themes.';
    const dir = cand(`${U}/memories/preferences`, {
      uri: `${U}/memories/preferences/.overview.md`,
      isDirectory: true,
      level: 1,
      score: 0.6,
    });
    const file = cand(`${U}/memories/preferences/vim.md`, { abstract: memory, score: 0.5 });
    const twin = cand(`${U}/memories/preferences/vim-copy.md`, { abstract: memory, score: 0.4 });
    const huge = cand(`${U}/memories/preferences/huge.md`, { abstract: 'word '.repeat(2000), score: 0.3 });
    const contents = new Map([
      [
        `${U}/memories/preferences/.overview.md`,
        `# preferences\n\n2 items in ${U}/memories/preferences.\n\n- vim.md: ${memory}`,
      ],
    ]);
    const plain = planEntries({ candidates: [dir, file, twin, huge], contents, maxTokens: 800 });
    expect(plain.explain).toBeUndefined();
    const { entries, explain, stats } = planEntries({
      candidates: [dir, file, twin, huge],
      contents,
      maxTokens: 800,
      explain: true,
    });
    expect(explain!.map((e) => [e.uri, e.rank, e.outcome])).toEqual([
      [dir.baseUri, 1, 'redundant'],
      [file.baseUri, 2, 'served'],
      [twin.baseUri, 3, 'deduped'],
      [huge.baseUri, 4, 'served'],
    ]);
    expect(explain![1]).toMatchObject({
      detail: 'abstract',
      start: 'abstract',
      ceiling: 'abstract',
      score: 0.5,
      ranked_score: 0.5,
      origin: 'self',
    });
    expect(explain![2]!.why).toContain(`deduped: same text as ${file.baseUri}`);
    // The huge abstract is over the cap and has no body: served bare, and explain says why.
    expect(explain![3]!.detail).toBe('uri');
    expect(explain![3]!.why.some((w) => w.startsWith('degraded past abstract:') && w.includes('per-entry cap'))).toBe(
      true,
    );
    expect(entries.map((e) => e.uri)).toEqual([file.baseUri, huge.baseUri]);
    expect(stats.redundant).toBe(1);
    expect(JSON.stringify(explain)).not.toContain('keybindings');
  });
});

describe('planEntries: reserve candidates', () => {
  it('candidates past `primary` neither shrink the cap nor take budget before the primary ones', () => {
    const events = Array.from({ length: 4 }, (_, i) =>
      cand(`${U}/memories/events/e${i}.md`, { category: 'events', abstract: 'x', score: 1 - i / 10 }),
    );
    const facts = Array.from({ length: 20 }, (_, i) =>
      cand(`${U}/memories/facts/f${i}.md`, {
        category: 'memories',
        abstract: `fact ${i}: a distinct short note number ${i}`,
        score: 0.5 - i / 100,
      }),
    );
    const body = (i: number) =>
      `# Summary\nevent ${i}\n# ChatLog:\n${`line ${i} about the garden party and the weather today. `.repeat(10)}`;
    const contents = new Map(events.map((c, i) => [c.baseUri, body(i)]));
    const all = [...events, ...facts];
    const withReserve = planEntries({ candidates: all, contents, maxTokens: 1200, primary: 4 });
    expect(withReserve.stats.perEntryCap).toBe(600);
    expect(withReserve.entries.slice(0, 4).every((e) => e.detail === 'full')).toBe(true);
    expect(withReserve.entries.length).toBeGreaterThan(4);
    const flat = planEntries({ candidates: all, contents, maxTokens: 1200 });
    expect(flat.stats.perEntryCap).toBe(100);
  });

  it('splits a listing into gists as the earlier pattern did, whatever the whitespace around a separator', () => {
    // The earlier pattern (it rescanned a whitespace run from each space): the reference for the split.
    const earlier = (text: string) => {
      const parts = text.split(/(\s*(?:—|;|…|\n)\s*)/);
      const out: { text: string; cut: boolean }[] = [];
      for (let i = 0; i < parts.length; i += 2)
        out.push({ text: parts[i]!, cut: parts[i + 1]?.trimStart().startsWith('…') ?? false });
      return out;
    };
    const visible = (list: { text: string; cut: boolean }[]) =>
      list.map((g) => ({ text: g.text.trim(), cut: g.cut })).filter((g) => g.text !== '');
    const alphabet = ['a', 'b', ' ', ' ', '\t', '\n', ';', '—', '…', 'x.md:'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: next() % 24 }, () => alphabet[next() % alphabet.length]).join('');
      expect(visible(gists(text))).toEqual(visible(earlier(text)));
    }
    const long = `a b c${' '.repeat(200_000)}d e f — g h i`;
    expect(visible(gists(long))).toEqual([
      { text: `a b c${' '.repeat(200_000)}d e f`, cut: false },
      { text: 'g h i', cut: false },
    ]);
  });
});

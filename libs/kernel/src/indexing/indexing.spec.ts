import { directorySidecars } from './directory-sidecars';
import { abstractIsWholeBody, fileAbstract, MEMORY_ABSTRACT_LIMIT } from './node-abstract';
import { searchText } from './search-text';
import { indexRunVerdict } from './index-run-verdict';

describe('fileAbstract', () => {
  it.each([
    [
      'memory file: whole stripped body',
      'viking://user/u/memories/events/a.md',
      '# Summary\nShipped X.\n<!-- MEMORY_FIELDS {"a":1} -->\n',
      '# Summary\nShipped X.',
    ],
    [
      'resource: title and first paragraph',
      'viking://resources/guide.md',
      '# Guide\n\nHow to deploy the thing.\n\n## More\n\nx',
      'Guide: How to deploy the thing.',
    ],
    ['resource without title', 'viking://resources/a.txt', 'plain text body', 'plain text body'],
    ['a title after a tab', 'viking://resources/g.md', '#\tGuide\n\nBody.', 'Guide: Body.'],
    ['a bare # is no title', 'viking://resources/g.md', '#\nGuide', '# Guide'],
    ['a long run of spaces after #', 'viking://resources/g.md', `#${' '.repeat(50_000)}\nx`, '# x'],
  ])('%s', (_name, uri, content, expected) => {
    expect(fileAbstract(uri, content, MEMORY_ABSTRACT_LIMIT)).toBe(expected);
  });

  it('cuts long summaries at a word boundary within 256 code points', () => {
    const a = fileAbstract('viking://resources/x.md', 'word '.repeat(200), MEMORY_ABSTRACT_LIMIT);
    expect([...a].length).toBeLessThanOrEqual(256);
    expect(a.endsWith('…')).toBe(true);
  });

  it('keeps a memory body whole up to the memory limit, and cuts a longer one there at a word', () => {
    const uri = 'viking://user/u/memories/events/e.md';
    const small = 'Moved to Lisbon in May. '.repeat(10).trim();
    expect(fileAbstract(uri, small, 1000)).toBe(small);
    const big = fileAbstract(uri, 'Moved to Lisbon in May. '.repeat(1000), 1000);
    expect([...big].length).toBeLessThanOrEqual(1000);
    expect(big.startsWith('Moved to Lisbon in May. Moved')).toBe(true);
    expect(big.endsWith('…')).toBe(true);
    // Astral characters count as one each, as the limit is code points.
    expect([...fileAbstract(uri, '😀'.repeat(1500), 1000)].length).toBe(1000);
  });
});

describe('abstractIsWholeBody', () => {
  const memory = 'viking://user/u/memories/events/e.md';

  it('holds for a memory abstract that was not cut, under any limit, and never for a cut one', () => {
    const body = 'Moved to Lisbon in May.\n\n<!-- MEMORY_FIELDS {"k": 1} -->\n';
    const whole = fileAbstract(memory, body, 1000);
    expect(whole).toBe('Moved to Lisbon in May.');
    expect(abstractIsWholeBody(memory, whole)).toBe(true);
    for (const limit of [40, 100, 1000]) {
      const cut = fileAbstract(memory, 'Moved to Lisbon in May. '.repeat(100), limit);
      expect(abstractIsWholeBody(memory, cut)).toBe(false);
    }
    expect(abstractIsWholeBody(memory, '')).toBe(true);
  });

  it('never for other files, whose abstract is a summary, nor for a body that ends like a cut', () => {
    expect(abstractIsWholeBody('viking://resources/docs/a.md', 'Title: first paragraph')).toBe(false);
    expect(abstractIsWholeBody(memory, 'and then…')).toBe(false);
  });
});

describe('directorySidecars', () => {
  it('lists children with abstracts, hides dot-files, stays within the size limits', () => {
    const children = Array.from({ length: 200 }, (_, i) => ({
      uri: `viking://resources/d/f${i}.md`,
      kind: 'file' as const,
      abstract: 'x'.repeat(150),
    }));
    children.push({ uri: 'viking://resources/d/.hidden', kind: 'file', abstract: 'secret' });
    const s = directorySidecars('viking://resources/d', children);
    expect(s.overview.length).toBeLessThanOrEqual(4000);
    expect(s.overview).toContain('- f0.md: ');
    expect(s.overview).toMatch(/… and \d+ more/);
    expect(s.overview).not.toContain('.hidden');
    expect([...s.abstract].length).toBeLessThanOrEqual(256);
  });

  it('summarises before it lists: the span of the dates and the words the children share', () => {
    const kid = (name: string, abstract: string) => ({
      uri: `viking://user/u/memories/events/${name}`,
      kind: 'file' as const,
      abstract,
    });
    const s = directorySidecars('viking://user/u/memories/events', [
      kid('2023-05-08-camping.md', 'Melanie went camping with the kids at the lake.'),
      kid('2023-07-17-pottery.md', 'Melanie made pottery; the kids painted bowls.'),
      kid('2023-06-01-talk.md', 'Caroline gave a talk about adoption.'),
    ]);
    expect(s.overview).toContain('Dates: 2023-05-08 to 2023-07-17.');
    expect(s.overview).toContain('Topics: kids, melanie.');
    expect(s.overview.indexOf('Topics:')).toBeLessThan(s.overview.indexOf('- 2023-05-08-camping.md: '));
    expect(s.abstract).toMatch(/^events: 3 items \(2023-05-08 to 2023-07-17; kids, melanie\) — /);
    // One child: its own abstract says it better than a summary.
    const one = directorySidecars('viking://user/u/memories/x', [kid('a.md', 'Prefers vim and dark themes.')]);
    expect(one.overview).not.toMatch(/Topics:|Dates:/);
    // Subdirectories' abstracts count their children (`1 item`, `3 items`): that word is not a topic.
    const dir = (name: string, abstract: string) => ({
      uri: `viking://user/u/memories/${name}`,
      kind: 'directory' as const,
      abstract,
    });
    const memories = directorySidecars('viking://user/u/memories', [
      dir('entities', 'entities: 1 item — mentioned: 3 items (2026-12-02; user,…'),
      dir('events', 'events: 1 item — 2026: 1 item — 12: 1 item — # Summary…'),
    ]);
    expect(memories.overview).not.toMatch(/Topics: .*item/);
    // The offline extractor's quote lines end in a message id: neither its hex run nor a piece of it is a topic.
    const quoted = directorySidecars('viking://user/u/memories/entities/mentioned', [
      kid('acme.md', '# Acme - [user]: Moved to Lisbon for Acme billing. (msg_1dbd1832857941b884e9099fc4de5662)'),
      kid('lisbon.md', '# Lisbon - [user]: Moved to Lisbon for Acme billing. (msg_1dbd1832857941b884e9099fc4de5662)'),
      kid('python.md', '# Python - python3 scripts for billing (msg_a9f00000000000000000000000000001)'),
      kid('py.md', '# Py - python3 again (msg_b7c00000000000000000000000000002)'),
    ]);
    expect(quoted.overview).toMatch(/Topics: .*billing/);
    expect(quoted.overview).toMatch(/Topics: .*python3/);
    expect(quoted.overview).not.toMatch(/Topics: .*(?:dbd18|1dbd|msg)/);
    // Two event parts of one day share only their format's scaffolding: labels, headings, the date line's names.
    const part = (n: number, said: string) =>
      kid(
        `s_p${n}.md`,
        `# Summary\nWednesday 2 December 2026, user and assistant.\n[assistant]: ${said}\n# 2026-12-02 (Wednesday) ChatLog:`,
      );
    const day = directorySidecars('viking://user/u/memories/events', [
      part(1, 'Noted, the billing migration is due Friday.'),
      part(2, 'Noted, the billing dashboard moved to Grafana.'),
    ]);
    expect(day.overview).toContain('Topics: billing, noted.');
  });

  it('is deterministic', () => {
    const c = [{ uri: 'viking://resources/d/a.md', kind: 'file' as const, abstract: 'alpha' }];
    expect(directorySidecars('viking://resources/d', c)).toEqual(directorySidecars('viking://resources/d', c));
  });
});

describe('searchText', () => {
  it('segments CJK and keeps identifiers whole and split', () => {
    const t = searchText('用户喜欢喝咖啡 ERR_CONN_RESET in src/foo/bar.ts');
    expect(t).toContain('咖啡');
    expect(t).toContain('err_conn_reset');
    expect(t).toContain('src/foo/bar.ts');
    expect(t).toContain('bar');
  });
});

describe('indexRunVerdict', () => {
  it.each([
    ['no earlier run died', 0, 0, 5, 2, 'run'],
    ['fewer deaths than the limit', 1, 0, 5, 2, 'run'],
    ['a batch at the limit is split', 2, 0, 5, 2, 'split'],
    ['a batch is split even after a death alone', 2, 1, 5, 2, 'split'],
    ['a single file at the limit runs alone', 2, 0, 1, 2, 'alone'],
    ['a single file that died alone is held', 2, 1, 1, 2, 'hold'],
    ['a limit of one acts on the first death', 1, 0, 3, 1, 'split'],
    ['deaths alone below the limit do not count', 1, 1, 1, 2, 'run'],
  ] as const)('%s', (_name, crashes, aloneCrashes, files, limit, verdict) => {
    expect(indexRunVerdict({ crashes, aloneCrashes, files }, limit)).toBe(verdict);
  });
});

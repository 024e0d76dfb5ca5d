import { candidate } from '../testing/candidate';
import { Candidate } from './candidate';
import { Category } from './category';
import { detailStat, normalizeDetail, pinFor } from './detail-pins';
import { contentUriFor, normalizeReadContent, overviewFromContent, sidecarDirectory, tierText } from './tier-text';
import { tiersDownFrom, tierWindow } from './tier-window';

const cand = (category: Category, over: Partial<Candidate> = {}) =>
  candidate(over.baseUri ?? `viking://user/u/memories/${category}/x.md`, category, {
    abstract: 'has abstract',
    ...over,
  });

describe('tier table', () => {
  it.each([
    { name: 'events default', c: cand('events'), pin: null, start: 'overview', ceiling: 'full' },
    { name: 'entities default', c: cand('entities'), pin: null, start: 'abstract', ceiling: 'abstract' },
    { name: 'preferences default', c: cand('preferences'), pin: null, start: 'abstract', ceiling: 'abstract' },
    { name: 'experiences default', c: cand('experiences'), pin: null, start: 'abstract', ceiling: 'abstract' },
    { name: 'memories catch-all default', c: cand('memories'), pin: null, start: 'abstract', ceiling: 'abstract' },
    { name: 'resources default', c: cand('resources'), pin: null, start: 'abstract', ceiling: 'abstract' },
    { name: 'skills default', c: cand('skills'), pin: null, start: 'abstract', ceiling: 'abstract' },
    {
      name: 'entity without abstract → overview substitute',
      c: cand('entities', { abstract: '  ' }),
      pin: null,
      start: 'overview',
      ceiling: 'overview',
    },
    {
      name: 'resource without abstract → uri substitute',
      c: cand('resources', { abstract: '' }),
      pin: null,
      start: 'uri',
      ceiling: 'uri',
    },
    {
      name: 'skill without abstract → uri substitute',
      c: cand('skills', { abstract: '' }),
      pin: null,
      start: 'uri',
      ceiling: 'uri',
    },
    {
      name: 'pin fixes start and ceiling',
      c: cand('events'),
      pin: 'abstract' as const,
      start: 'abstract',
      ceiling: 'abstract',
    },
    { name: 'pin full on an entity', c: cand('entities'), pin: 'full' as const, start: 'full', ceiling: 'full' },
    {
      name: 'memory pinned abstract without one → overview',
      c: cand('preferences', { abstract: '' }),
      pin: 'abstract' as const,
      start: 'overview',
      ceiling: 'overview',
    },
    {
      name: 'resource pinned abstract without one → uri',
      c: cand('resources', { abstract: '' }),
      pin: 'abstract' as const,
      start: 'uri',
      ceiling: 'uri',
    },
    {
      name: 'event without abstract keeps overview',
      c: cand('events', { abstract: '' }),
      pin: null,
      start: 'overview',
      ceiling: 'full',
    },
    {
      name: 'directory ignores pins',
      c: cand('entities', { isDirectory: true }),
      pin: 'full' as const,
      start: 'overview',
      ceiling: 'overview',
    },
    {
      name: 'directory default',
      c: cand('resources', { isDirectory: true }),
      pin: null,
      start: 'overview',
      ceiling: 'overview',
    },
  ])('$name', ({ c, pin, start, ceiling }) => {
    expect(tierWindow(c, pin)).toEqual({ start, ceiling });
  });

  it.each([
    {
      name: 'memory abstract tries overview next',
      c: cand('entities'),
      start: 'abstract' as const,
      order: ['abstract', 'overview', 'uri'],
    },
    {
      name: 'resource abstract falls straight to uri',
      c: cand('resources'),
      start: 'abstract' as const,
      order: ['abstract', 'uri'],
    },
    {
      name: 'full walks the whole ladder',
      c: cand('events'),
      start: 'full' as const,
      order: ['full', 'overview', 'abstract', 'uri'],
    },
    { name: 'overview', c: cand('events'), start: 'overview' as const, order: ['overview', 'abstract', 'uri'] },
    { name: 'uri', c: cand('resources'), start: 'uri' as const, order: ['uri'] },
  ])('fallback order: $name', ({ c, start, order }) => {
    expect(tiersDownFrom(c, start)).toEqual(order);
  });
});

describe('detail pins', () => {
  it.each([
    { name: 'null', value: null, scalar: null, events: null, stat: null },
    { name: '"auto" means no pin', value: 'auto', scalar: null, events: null, stat: null },
    { name: 'unknown scalar dropped (MCP leniency)', value: 'summary', scalar: null, events: null, stat: null },
    { name: 'scalar', value: 'overview', scalar: 'overview', events: 'overview', stat: 'overview' },
    {
      name: 'map',
      value: { events: 'full', memories: 'abstract' },
      scalar: null,
      events: 'full',
      stat: { events: 'full', memories: 'abstract' },
    },
    {
      name: 'map drops unknown keys and tiers',
      value: { events: 'uri', foo: 'full', entities: 'full' },
      scalar: null,
      events: null,
      stat: { entities: 'full' },
    },
  ])('$name', ({ value, scalar, events, stat }) => {
    const pins = normalizeDetail(value);
    expect(pins.scalar).toBe(scalar);
    expect(pinFor(pins, 'events')).toBe(events);
    expect(detailStat(pins)).toEqual(stat);
  });
});

describe('tier texts', () => {
  const doc = '# Title\n\nintro text\n\n## Body\n\nmore';
  it.each([
    {
      name: 'directory: sidecar body without frontmatter',
      c: cand('resources', { baseUri: 'viking://resources/d', isDirectory: true }),
      content: '---\ndirectory: d\n---\n Overview body \n',
      out: 'Overview body',
    },
    {
      name: 'code file: skeleton',
      c: cand('resources', { baseUri: 'viking://resources/app.py' }),
      content: 'def run(x):\n    return x\n',
      out: 'def run(x):',
    },
    {
      name: 'code file without signatures: document outline',
      c: cand('resources', { baseUri: 'viking://resources/cfg.py' }),
      content: 'X = 1\n',
      out: 'X = 1',
    },
    {
      name: 'memory: summary section',
      c: cand('events'),
      content: '# Summary\nthe gist\n# Log\nnoise',
      out: 'the gist',
    },
    {
      name: 'memory without summary: document outline',
      c: cand('events'),
      content: doc,
      out: '# Title\n  ## Body\n\nintro text',
    },
    {
      name: 'generic document',
      c: cand('resources', { baseUri: 'viking://resources/guide.md' }),
      content: doc,
      out: '# Title\n  ## Body\n\nintro text',
    },
    { name: 'empty content', c: cand('resources'), content: '', out: '' },
  ])('overview: $name', ({ c, content, out }) => {
    expect(overviewFromContent(c, content)).toBe(out);
  });

  it.each([
    {
      name: 'uri is always available and empty',
      tier: 'uri' as const,
      c: cand('resources', { abstract: '' }),
      out: '',
    },
    { name: 'abstract trimmed', tier: 'abstract' as const, c: cand('entities', { abstract: '  gist  ' }), out: 'gist' },
    {
      name: 'empty abstract unavailable',
      tier: 'abstract' as const,
      c: cand('entities', { abstract: ' ' }),
      out: null,
    },
    { name: 'full is the trimmed body', tier: 'full' as const, c: cand('events'), out: '# Summary\nthe gist' },
    {
      name: 'full unavailable for directories',
      tier: 'full' as const,
      c: cand('events', { isDirectory: true }),
      out: null,
    },
    {
      name: 'overview unavailable without content',
      tier: 'overview' as const,
      c: cand('events', { baseUri: 'viking://user/u/memories/events/missing.md' }),
      out: null,
    },
  ])('tierText: $name', ({ tier, c, out }) => {
    const contents = new Map([['viking://user/u/memories/events/x.md', '  # Summary\nthe gist  ']]);
    expect(tierText(c, tier, contents)).toBe(out);
  });

  it.each([
    {
      name: 'memory file loses its trailer',
      c: cand('events'),
      raw: 'body\n\n<!-- MEMORY_FIELDS\n{}\n-->\n',
      out: 'body',
    },
    {
      name: 'resource file untouched',
      c: cand('resources', { baseUri: 'viking://resources/a.md' }),
      raw: ' body <!-- MEMORY_FIELDS {} -->',
      out: ' body <!-- MEMORY_FIELDS {} -->',
    },
    {
      name: 'memory directory sidecar untouched',
      c: cand('entities', { baseUri: 'viking://user/u/memories/entities', isDirectory: true }),
      raw: '---\ndirectory: d\n---\nx\n',
      out: '---\ndirectory: d\n---\nx\n',
    },
  ])('normalizeReadContent: $name', ({ c, raw, out }) => {
    expect(normalizeReadContent(c, raw)).toBe(out);
  });

  it('content URI of a directory is its overview sidecar', () => {
    expect(contentUriFor({ baseUri: 'viking://resources/d', isDirectory: true })).toBe(
      'viking://resources/d/.overview.md',
    );
    expect(contentUriFor({ baseUri: 'viking://resources/d/a.md', isDirectory: false })).toBe(
      'viking://resources/d/a.md',
    );
  });

  it('sidecarDirectory undoes contentUriFor: the directory of an overview sidecar, null for a file', () => {
    for (const c of [
      { baseUri: 'viking://resources/d', isDirectory: true },
      { baseUri: 'viking://user/u/memories/events', isDirectory: true },
    ]) {
      expect(sidecarDirectory(contentUriFor(c))).toBe(c.baseUri);
    }
    expect(sidecarDirectory('viking://resources/d/a.md')).toBeNull();
    expect(sidecarDirectory('viking://resources/d/.abstract.md')).toBeNull();
    expect(sidecarDirectory('viking://resources/d/x.overview.md')).toBeNull();
  });
});

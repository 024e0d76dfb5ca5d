import { KernelError, KernelErrorCode } from '../kernel.error';
import { buildFilter, withContextType } from './build-filter';
import { parseContextTypes } from './context-types';
import { andFilters, normalizeFilterTree } from './filter-node';
import { parseLevels } from './levels';
import { buildTagsFilter, isTagPair, normalizeSearchTags } from './search-tags';
import { parseTimeBound, resolveTimeBounds } from './time-bound';

const NOW = new Date('2026-03-10T12:00:00.000Z');

function invalid(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(KernelError);
    expect((error as KernelError).code).toBe(KernelErrorCode.InvalidArgument);
    return (error as KernelError).message;
  }
  throw new Error('expected INVALID_ARGUMENT');
}

describe('parseContextTypes', () => {
  it.each([
    { name: 'null', value: null, out: [] },
    { name: 'single', value: 'memory', out: ['memory'] },
    { name: 'case-insensitive', value: 'RESOURCE', out: ['resource'] },
    { name: 'comma list with spaces', value: 'memory, skill', out: ['memory', 'skill'] },
    { name: 'list with comma items, deduped', value: ['memory,resource', 'Memory'], out: ['memory', 'resource'] },
    { name: 'blanks skipped', value: ' , memory,', out: ['memory'] },
  ])('$name', ({ value, out }) => {
    expect(parseContextTypes(value)).toEqual(out);
  });

  it.each([
    {
      name: 'unknown value',
      value: 'memories',
      message: 'context_type must be one or more of: memory, resource, skill',
    },
    {
      name: 'unknown inside a list',
      value: ['memory', 'doc'],
      message: 'context_type must be one or more of: memory, resource, skill',
    },
    {
      name: 'number',
      value: 3,
      message: 'context_type must be a ContextType, string, or list of ContextType/string values',
    },
    {
      name: 'number in list',
      value: ['memory', 1],
      message: 'context_type must be a ContextType, string, or list of ContextType/string values',
    },
  ])('rejects $name', ({ value, message }) => {
    expect(invalid(() => parseContextTypes(value))).toBe(message);
  });
});

describe('parseLevels', () => {
  it.each([
    { name: 'null', value: null, out: [] },
    { name: 'int', value: 1, out: [1] },
    { name: 'comma string', value: '0,2', out: [0, 2] },
    { name: 'comma string with junk', value: ' 0 , x, 2 ,', out: [0, 2] },
    { name: 'single string', value: ' 1 ', out: [1] },
    { name: 'blank string', value: '  ', out: [] },
    { name: 'list of ints and numeric strings', value: [0, '2', 'x'], out: [0, 2] },
    { name: 'non-integer number', value: 1.5, out: [] },
  ])('$name', ({ value, out }) => {
    expect(parseLevels(value)).toEqual(out);
  });
});

describe('search tags', () => {
  it.each([
    { name: 'null', tags: null, out: [] },
    { name: 'normalized and lower-cased', tags: [' Lang=TS '], out: ['lang=ts'] },
    { name: 'last value per key wins at the first position', tags: ['a=1', 'b=2', 'A=3'], out: ['a=3', 'b=2'] },
    { name: 'null items skipped', tags: [null, 'k=v'], out: ['k=v'] },
  ])('$name', ({ tags, out }) => {
    expect(normalizeSearchTags(tags)).toEqual(out);
  });

  it.each([
    { name: 'empty tag', tags: [' '], message: 'search tag must be a non-empty k=v string' },
    { name: 'no equals', tags: ['lang'], message: "invalid search tag 'lang': expected strict k=v format" },
    { name: 'two equals', tags: ['a=b=c'], message: "invalid search tag 'a=b=c': expected strict k=v format" },
    { name: 'empty value', tags: ['a='], message: "invalid search tag 'a=': key and value must both be non-empty" },
    { name: 'empty key', tags: ['=b'], message: "invalid search tag '=b': key and value must both be non-empty" },
    { name: 'not a list', tags: 'a=b', message: 'tags must be a list of k=v strings' },
  ])('rejects $name', ({ tags, message }) => {
    expect(invalid(() => normalizeSearchTags(tags))).toBe(message);
  });

  it('one tag is a leaf, several are an and', () => {
    expect(buildTagsFilter(['a=1'])).toEqual({ op: 'must', field: 'search_tags', conds: ['a=1'] });
    expect(buildTagsFilter(['a=1', 'b=2'])).toEqual({
      op: 'and',
      conds: [
        { op: 'must', field: 'search_tags', conds: ['a=1'] },
        { op: 'must', field: 'search_tags', conds: ['b=2'] },
      ],
    });
  });
});

describe('time bounds', () => {
  it.each([
    { name: 'relative days', value: '7d', upper: false, iso: '2026-03-03T12:00:00.000Z' },
    { name: 'relative seconds', value: '30s', upper: false, iso: '2026-03-10T11:59:30.000Z' },
    { name: 'relative weeks', value: '2w', upper: true, iso: '2026-02-24T12:00:00.000Z' },
    { name: 'relative zero', value: '0h', upper: false, iso: '2026-03-10T12:00:00.000Z' },
    {
      name: 'date only, lower bound = start of day',
      value: '2026-01-05',
      upper: false,
      iso: '2026-01-05T00:00:00.000Z',
    },
    { name: 'date only, upper bound = end of day', value: '2026-01-05', upper: true, iso: '2026-01-05T23:59:59.999Z' },
    { name: 'naive ISO is UTC', value: '2026-01-05T10:20:30', upper: false, iso: '2026-01-05T10:20:30.000Z' },
    { name: 'Z suffix', value: '2026-01-05T10:20:30Z', upper: false, iso: '2026-01-05T10:20:30.000Z' },
    {
      name: 'positive offset converted to UTC',
      value: '2026-01-05T10:20:30+08:00',
      upper: false,
      iso: '2026-01-05T02:20:30.000Z',
    },
    { name: 'negative compact offset', value: '2026-01-05T10:20-0130', upper: false, iso: '2026-01-05T11:50:00.000Z' },
    {
      name: 'long fraction truncated to ms',
      value: '2026-02-21T13:20:23.1470042+08:00',
      upper: false,
      iso: '2026-02-21T05:20:23.147Z',
    },
    { name: 'space separator', value: '2026-01-05 10:20', upper: false, iso: '2026-01-05T10:20:00.000Z' },
    { name: 'hour only', value: '2026-01-05T07', upper: false, iso: '2026-01-05T07:00:00.000Z' },
    { name: 'surrounding spaces', value: ' 1d ', upper: false, iso: '2026-03-09T12:00:00.000Z' },
    { name: 'leap day', value: '2024-02-29', upper: false, iso: '2024-02-29T00:00:00.000Z' },
  ])('$name', ({ value, upper, iso }) => {
    expect(parseTimeBound(value, NOW, upper).toISOString()).toBe(iso);
  });

  it.each([
    { name: 'unknown unit', value: '7y' },
    { name: 'negative relative', value: '-7d' },
    { name: 'garbage', value: 'yesterday' },
    { name: 'impossible date', value: '2026-02-30' },
    { name: 'not a leap year', value: '2025-02-29' },
    { name: 'hour 24', value: '2026-01-05T24:00' },
    { name: 'single-digit month', value: '2026-1-05' },
  ])('rejects $name', ({ value }) => {
    expect(invalid(() => parseTimeBound(value, NOW))).toMatch(/Invalid isoformat string/);
  });

  it('rejects a relative bound reaching before year 1', () => {
    expect(invalid(() => parseTimeBound('999999999w', NOW))).toBe('since is out of range');
  });

  it.each([
    { name: 'both blank', since: ' ', until: null, out: { since: null, until: null } },
    {
      name: 'equal bounds are fine',
      since: '2026-01-05T00:00:00Z',
      until: '2026-01-05T00:00:00Z',
      out: { since: '2026-01-05T00:00:00.000Z', until: '2026-01-05T00:00:00.000Z' },
    },
    {
      name: 'same day date-only spans the day',
      since: '2026-01-05',
      until: '2026-01-05',
      out: { since: '2026-01-05T00:00:00.000Z', until: '2026-01-05T23:59:59.999Z' },
    },
  ])('resolveTimeBounds: $name', ({ since, until, out }) => {
    const bounds = resolveTimeBounds(since, until, NOW);
    expect({ since: bounds.since?.toISOString() ?? null, until: bounds.until?.toISOString() ?? null }).toEqual(out);
  });

  it('an inverted range is a 400', () => {
    expect(invalid(() => resolveTimeBounds('1d', '7d', NOW))).toBe('since must be earlier than or equal to until');
  });
});

describe('filter tree', () => {
  const leaf = (field: string) => ({ op: 'must' as const, field, conds: ['x'] });

  it.each([
    { name: 'null and null', left: null, right: null, out: null },
    { name: 'left only', left: leaf('a'), right: null, out: leaf('a') },
    { name: 'two leaves', left: leaf('a'), right: leaf('b'), out: { op: 'and', conds: [leaf('a'), leaf('b')] } },
    {
      name: 'and on both sides flattened',
      left: { op: 'and' as const, conds: [leaf('a'), leaf('b')] },
      right: { op: 'and' as const, conds: [leaf('c')] },
      out: { op: 'and', conds: [leaf('a'), leaf('b'), leaf('c')] },
    },
    {
      name: 'or is kept as one operand',
      left: { op: 'or' as const, conds: [leaf('a'), leaf('b')] },
      right: leaf('c'),
      out: { op: 'and', conds: [{ op: 'or', conds: [leaf('a'), leaf('b')] }, leaf('c')] },
    },
  ])('andFilters: $name', ({ left, right, out }) => {
    expect(andFilters(left, right)).toEqual(out);
  });

  it.each([
    { name: 'null', value: null, out: null },
    { name: 'empty object is no filter', value: {}, out: null },
    {
      name: 'leaf kept as is',
      value: { op: 'range', field: 'score', gte: 1 },
      out: { op: 'range', field: 'score', gte: 1 },
    },
    {
      name: 'nested and flattened',
      value: { op: 'and', conds: [{ op: 'and', conds: [leaf('a')] }, leaf('b')] },
      out: { op: 'and', conds: [leaf('a'), leaf('b')] },
    },
  ])('normalizeFilterTree: $name', ({ value, out }) => {
    expect(normalizeFilterTree(value)).toEqual(out);
  });

  it.each([
    { name: 'not an object', value: 'x', message: 'filter must be an object' },
    {
      name: 'unknown op',
      value: { op: 'near', field: 'a' },
      message: expect.stringContaining('filter.op must be one of'),
    },
    { name: 'group without conds', value: { op: 'and' }, message: 'filter.conds must be a list of filters' },
    {
      name: 'leaf without field',
      value: { op: 'must', conds: [] },
      message: 'filter.field must be a non-empty string',
    },
    { name: 'null child', value: { op: 'or', conds: [null] }, message: 'filter.conds[0] must be an object' },
    { name: 'empty child', value: { op: 'or', conds: [{}] }, message: expect.stringContaining('filter.conds[0].op') },
  ])('normalizeFilterTree rejects $name', ({ value, message }) => {
    expect(invalid(() => normalizeFilterTree(value))).toEqual(message);
  });
});

describe('buildFilter', () => {
  const ct = { op: 'must', field: 'context_type', conds: ['memory'] };
  const caller = { op: 'must', field: 'uri', conds: ['x'] };

  it.each([
    { name: 'nothing → null', request: {}, out: null },
    { name: 'context_type only', request: { contextType: 'MEMORY' }, out: ct },
    {
      name: 'caller filter and type',
      request: { filter: caller, contextType: 'memory' },
      out: { op: 'and', conds: [caller, ct] },
    },
    {
      name: 'time range defaults to updated_at',
      request: { since: '7d' },
      out: { op: 'time_range', field: 'updated_at', gte: '2026-03-03T12:00:00.000Z' },
    },
    {
      name: 'everything folded into one flat and',
      request: {
        filter: { op: 'and', conds: [caller] },
        contextType: 'memory',
        since: '2026-01-01',
        until: '2026-01-31',
        timeField: 'created_at',
        tags: ['a=1', 'b=2'],
      },
      out: {
        op: 'and',
        conds: [
          caller,
          ct,
          { op: 'time_range', field: 'created_at', gte: '2026-01-01T00:00:00.000Z', lte: '2026-01-31T23:59:59.999Z' },
          { op: 'must', field: 'search_tags', conds: ['a=1'] },
          { op: 'must', field: 'search_tags', conds: ['b=2'] },
        ],
      },
    },
    { name: 'tags only', request: { tags: ['k=v'] }, out: { op: 'must', field: 'search_tags', conds: ['k=v'] } },
  ])('$name', ({ request, out }) => {
    expect(buildFilter({ ...request, now: NOW })).toEqual(out);
  });

  it.each([
    { name: 'bad context type', request: { contextType: 'docs' } },
    { name: 'bad tag', request: { tags: ['nokv'] } },
    { name: 'inverted range', request: { since: '2026-02-01', until: '2026-01-01' } },
    { name: 'bad time field with a range', request: { since: '1d', timeField: 'deleted_at' } },
  ])('rejects $name', ({ request }) => {
    invalid(() => buildFilter({ ...request, now: NOW }));
  });

  it('withContextType keeps a filter untouched when no types are given', () => {
    expect(withContextType(ct as never, [])).toBe(ct);
    expect(withContextType(null, ['skill'])).toEqual({ op: 'must', field: 'context_type', conds: ['skill'] });
  });
});

describe('filter size and depth limits', () => {
  const limits = { maxNodes: 500, maxDepth: 16, maxPatternLength: 256 };
  const deep = (depth: number): unknown => {
    let node: unknown = { op: 'must', field: 'uri', conds: ['x'] };
    for (let i = 0; i < depth; i++) node = { op: 'or', conds: [node] };
    return node;
  };

  it.each([
    {
      name: '30,000 leaves',
      filter: { op: 'or', conds: Array.from({ length: 30_000 }, () => ({ op: 'must', field: 'uri', conds: ['x'] })) },
      message: 'filter has more than 500 nodes and values',
    },
    {
      name: 'one leaf with 30,000 values',
      filter: { op: 'must', field: 'uri', conds: Array.from({ length: 30_000 }, String) },
      message: 'filter has more than 500 nodes and values',
    },
    { name: 'nesting 1,000 deep', filter: deep(1000), message: 'filter nests deeper than 16 levels' },
    {
      name: 'nesting 200,000 deep (no stack overflow)',
      filter: deep(200_000),
      message: 'filter nests deeper than 16 levels',
    },
  ])('buildFilter refuses $name with INVALID_ARGUMENT', ({ filter, message }) => {
    expect(() => buildFilter({ filter, now: new Date(), limits })).toThrow(message);
  });

  it('accepts a filter exactly at the depth limit', () => {
    expect(buildFilter({ filter: deep(15), now: new Date(), limits })).not.toBeNull();
  });
});

describe('isTagPair', () => {
  it.each([
    { tag: 'k=v', strict: true, spaced: true },
    { tag: '  k=some value  ', strict: true, spaced: true },
    { tag: 'k =v', strict: false, spaced: true },
    { tag: ' k = v ', strict: false, spaced: true },
    { tag: 'k=', strict: false, spaced: false },
    { tag: 'k=   ', strict: false, spaced: false },
    { tag: '=v', strict: false, spaced: false },
    { tag: 'k=v=w', strict: false, spaced: false },
    { tag: 'my key=v', strict: false, spaced: false },
    { tag: 'novalue', strict: false, spaced: false },
    { tag: `k=${' '.repeat(100_000)}x`, strict: true, spaced: true },
    { tag: `k=${' '.repeat(100_000)}=`, strict: false, spaced: false },
  ])('$tag', ({ tag, strict, spaced }) => {
    expect(isTagPair(tag)).toBe(strict);
    expect(isTagPair(tag, true)).toBe(spaced);
  });
});

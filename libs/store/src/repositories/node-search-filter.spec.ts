import { FilterNode, KernelError, KernelErrorCode } from '@app/kernel';
import { assertSearchableFilter, filterToSql } from './node-search-filter';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const at = (node: unknown, level = 2, first = 1) =>
  filterToSql(node as FilterNode, { first, level, alias: 'n', now: NOW });

function rejects(node: unknown): string {
  try {
    at(node);
  } catch (error) {
    expect(error).toBeInstanceOf(KernelError);
    expect((error as KernelError).code).toBe(KernelErrorCode.InvalidArgument);
    return (error as KernelError).message;
  }
  throw new Error('expected INVALID_ARGUMENT');
}

describe('filterToSql', () => {
  it.each([
    {
      name: 'must on a text column binds the list',
      node: { op: 'must', field: 'context_type', conds: ['memory', 'skill'] },
      sql: 'coalesce(n.context_type = ANY($1::text[]), FALSE)',
      params: [['memory', 'skill']],
    },
    {
      name: 'must_not negates',
      node: { op: 'must_not', field: 'uri', conds: ['viking://a'] },
      sql: 'NOT coalesce(n.uri = ANY($1::text[]), FALSE)',
      params: [['viking://a']],
    },
    {
      name: 'prefix escapes LIKE wildcards in the value',
      node: { op: 'prefix', field: 'uri', prefix: 'viking://resources/100%_x\\' },
      sql: 'coalesce(n.uri LIKE $1, FALSE)',
      params: ['viking://resources/100\\%\\_x\\\\%'],
    },
    {
      name: 'contains is a plain substring test',
      node: { op: 'contains', field: 'abstract', substring: "'; DROP TABLE nodes; --" },
      sql: 'coalesce(strpos(n.abstract, $1) > 0, FALSE)',
      params: ["'; DROP TABLE nodes; --"],
    },
    {
      name: 'regex binds the pattern',
      node: { op: 'regex', field: 'uri', pattern: '^viking://resources/.+\\.md$' },
      sql: 'coalesce(n.uri ~ $1, FALSE)',
      params: ['^viking://resources/.+\\.md$'],
    },
    {
      name: 'tags match case-insensitively',
      node: { op: 'must', field: 'search_tags', conds: ['Lang=TS'] },
      sql: 'EXISTS (SELECT 1 FROM unnest(n.tags) AS tag(v) WHERE lower(tag.v) = ANY($1::text[]))',
      params: [['lang=ts']],
    },
    {
      name: 'time_range binds ISO instants (date-only upper bound is the end of that day)',
      node: { op: 'time_range', field: 'updated_at', gte: '2026-01-01', lte: '2026-01-31' },
      sql: '(n.updated_at >= $1::timestamptz AND n.updated_at <= $2::timestamptz)',
      params: ['2026-01-01T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
    },
    {
      name: 'relative bounds are taken from now',
      node: { op: 'range', field: 'created_at', gt: '7d' },
      sql: '(n.created_at > $1::timestamptz)',
      params: ['2026-03-03T12:00:00.000Z'],
    },
    {
      name: 'range_out is the complement',
      node: { op: 'range_out', field: 'created_at', lt: '2026-03-01T00:00:00Z' },
      sql: 'NOT (n.created_at < $1::timestamptz)',
      params: ['2026-03-01T00:00:00.000Z'],
    },
    {
      name: 'and/or nest and number placeholders in order',
      node: {
        op: 'and',
        conds: [
          { op: 'must', field: 'context_type', conds: ['memory'] },
          {
            op: 'or',
            conds: [
              { op: 'prefix', field: 'uri', prefix: 'viking://a' },
              { op: 'must', field: 'tags', conds: ['k=v'] },
            ],
          },
        ],
      },
      sql: '(coalesce(n.context_type = ANY($1::text[]), FALSE) AND (coalesce(n.uri LIKE $2, FALSE) OR EXISTS (SELECT 1 FROM unnest(n.tags) AS tag(v) WHERE lower(tag.v) = ANY($3::text[]))))',
      params: [['memory'], 'viking://a%', ['k=v']],
    },
    { name: 'empty and is true', node: { op: 'and', conds: [] }, sql: 'TRUE', params: [] },
    { name: 'empty or is false', node: { op: 'or', conds: [] }, sql: 'FALSE', params: [] },
  ])('$name', ({ node, sql, params }) => {
    expect(at(node)).toEqual({ sql, params });
  });

  it('starts placeholders at `first`', () => {
    expect(at({ op: 'must', field: 'uri', conds: ['x'] }, 2, 7)).toEqual({
      sql: 'coalesce(n.uri = ANY($7::text[]), FALSE)',
      params: [['x']],
    });
  });

  it.each([
    { name: 'must level for its tier', node: { op: 'must', field: 'level', conds: [0, 2] }, level: 2, sql: 'TRUE' },
    {
      name: 'must level for another tier',
      node: { op: 'must', field: 'level', conds: [0, 2] },
      level: 1,
      sql: 'FALSE',
    },
    { name: 'must_not level', node: { op: 'must_not', field: 'level', conds: ['1'] }, level: 1, sql: 'FALSE' },
    { name: 'range on level', node: { op: 'range', field: 'level', gte: 1 }, level: 0, sql: 'FALSE' },
    { name: 'range_out on level', node: { op: 'range_out', field: 'level', lte: 1 }, level: 2, sql: 'TRUE' },
  ])('level is decided per tier without parameters: $name', ({ node, level, sql }) => {
    expect(at(node, level)).toEqual({ sql, params: [] });
  });

  it.each([
    {
      name: 'unknown field',
      node: { op: 'must', field: 'owner_user_id', conds: ['bob'] },
      message:
        "filter.field 'owner_user_id' is not searchable; use one of: uri, parent_uri, context_type, abstract, tags, search_tags, created_at, updated_at, level",
    },
    {
      name: 'field that looks like SQL',
      node: { op: 'must', field: 'uri) OR (1=1', conds: ['x'] },
      message: expect.stringContaining('is not searchable'),
    },
    {
      name: 'range on a text field',
      node: { op: 'range', field: 'uri', gte: 'a' },
      message: "filter.op 'range' is not supported on field 'uri'",
    },
    {
      name: 'prefix on a time field',
      node: { op: 'prefix', field: 'updated_at', prefix: '2026' },
      message: "filter.op 'prefix' is not supported on field 'updated_at'",
    },
    {
      name: 'non-string conds',
      node: { op: 'must', field: 'uri', conds: [1] },
      message: 'filter.conds must be a list of strings',
    },
    { name: 'prefix without a value', node: { op: 'prefix', field: 'uri' }, message: 'filter.prefix must be a string' },
    {
      name: 'range without bounds',
      node: { op: 'time_range', field: 'updated_at' },
      message: 'filter needs at least one of gte, gt, lte, lt',
    },
    {
      name: 'non-string time bound',
      node: { op: 'time_range', field: 'updated_at', gte: 5 },
      message: 'filter.gte must be an ISO-8601 date or time string',
    },
    {
      name: 'invalid regex',
      node: { op: 'regex', field: 'uri', pattern: '(' },
      message: expect.stringContaining('filter.pattern has an unclosed ('),
    },
    {
      name: 'JS-only named group',
      node: { op: 'regex', field: 'uri', pattern: '(?<x>a)' },
      message: expect.stringContaining('filter.pattern uses a look-around, a named group'),
    },
    {
      name: 'back-references',
      node: { op: 'regex', field: 'abstract', pattern: '^(.*)(.*)(.*)\\3\\2\\1$' },
      message: expect.stringContaining('filter.pattern uses a back-reference'),
    },
    {
      name: 'nested quantifiers',
      node: { op: 'regex', field: 'uri', pattern: '(a+)+$' },
      message: expect.stringContaining('nested quantifiers'),
    },
    {
      name: 'a pattern over the ceiling',
      node: { op: 'regex', field: 'uri', pattern: 'a'.repeat(4097) },
      message: 'filter.pattern is longer than 4096 characters',
    },
    {
      name: 'field constructor',
      node: { op: 'must', field: 'constructor', conds: ['x'] },
      message: expect.stringContaining("filter.field 'constructor' is not searchable"),
    },
    {
      name: 'field __proto__',
      node: JSON.parse('{"op":"must","field":"__proto__","conds":["x"]}'),
      message: expect.stringContaining("filter.field '__proto__' is not searchable"),
    },
    {
      name: 'field toString',
      node: { op: 'regex', field: 'toString', pattern: 'x' },
      message: expect.stringContaining("filter.field 'toString' is not searchable"),
    },
    {
      name: 'non-integer level',
      node: { op: 'must', field: 'level', conds: ['x'] },
      message: 'filter.conds must be a list of integer levels',
    },
    {
      name: 'nested path in messages',
      node: { op: 'and', conds: [{ op: 'or', conds: [{ op: 'must', field: 'nope', conds: [] }] }] },
      message: expect.stringContaining("filter.conds[0].conds[0].field 'nope'"),
    },
    { name: 'group without conds', node: { op: 'or' }, message: 'filter.conds must be a list of filters' },
  ])('rejects $name', ({ node, message }) => {
    expect(rejects(node)).toEqual(message);
  });

  it('refuses 30,000 leaves before compiling anything', () => {
    const leaves = Array.from({ length: 30_000 }, () => ({ op: 'must', field: 'uri', conds: ['x'] }));
    expect(rejects({ op: 'or', conds: leaves })).toBe('filter has more than 5000 nodes and values');
  });

  it('refuses a filter nested 1,000 deep (iteratively: no stack overflow at 100,000)', () => {
    for (const depth of [1000, 100_000]) {
      let node: unknown = { op: 'must', field: 'uri', conds: ['x'] };
      for (let i = 0; i < depth; i++) node = { op: 'or', conds: [node] };
      expect(rejects(node)).toBe('filter nests deeper than 64 levels');
    }
  });

  it('applies configured limits below the ceilings', () => {
    const limits = { maxNodes: 3, maxDepth: 2, maxPatternLength: 5 };
    const two = { op: 'or', conds: [{ op: 'must', field: 'uri', conds: ['a', 'b'] }] };
    expect(() => assertSearchableFilter(two as FilterNode, NOW, limits)).toThrow(
      'filter has more than 3 nodes and values',
    );
    const deep = { op: 'or', conds: [{ op: 'and', conds: [{ op: 'must', field: 'uri', conds: ['a'] }] }] };
    expect(() => assertSearchableFilter(deep as FilterNode, NOW, { ...limits, maxNodes: 10 })).toThrow(
      'filter nests deeper than 2 levels',
    );
    const long = { op: 'regex', field: 'uri', pattern: 'abcdef' };
    expect(() => assertSearchableFilter(long as FilterNode, NOW, limits)).toThrow(
      'filter.pattern is longer than 5 characters',
    );
  });

  it('sends the regex in PostgreSQL spelling', () => {
    expect(at({ op: 'regex', field: 'uri', pattern: '\\bnotes\\b' }).params).toEqual(['\\ynotes\\y']);
  });

  it('assertSearchableFilter accepts null and valid trees, rejects invalid ones', () => {
    expect(() => assertSearchableFilter(null)).not.toThrow();
    expect(() => assertSearchableFilter({ op: 'must', field: 'context_type', conds: ['memory'] })).not.toThrow();
    expect(() => assertSearchableFilter({ op: 'must', field: 'bogus', conds: [] })).toThrow(KernelError);
  });
});

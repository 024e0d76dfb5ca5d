import { FilterNode, Identity } from '@app/kernel';
import { buildSearchSql } from './node-search.repository';
import { NodeSearchQuery } from './node-search.types';

const alice: Identity = { accountId: "acme'; --", userId: 'alice', role: 'user', actorPeerId: 'p1' };
const base: NodeSearchQuery = {
  identity: alice,
  targets: ['viking://user/alice/memories%_'],
  filter: { op: 'contains', field: 'abstract', substring: "x' OR 1=1 --" } as FilterNode,
  levels: null,
  limit: 10,
  scoreThreshold: null,
  vector: { values: new Float32Array([0.6, 0.8]), embedderId: 'emb$1' },
  terms: ['coffee'],
};
const input = {
  k: 40,
  vector: base.vector,
  weights: [{ term: "o'brien", df: 3, idf: 2 }],
  now: new Date('2026-03-10T00:00:00Z'),
};

describe('buildSearchSql', () => {
  it('keeps every caller value out of the SQL text', () => {
    const plan = buildSearchSql(base, input)!;
    for (const value of [
      "acme'; --",
      'alice',
      'p1',
      'viking://user/alice/memories',
      "x' OR 1=1 --",
      'emb$1',
      "o'brien",
    ]) {
      expect(plan.sql).not.toContain(value);
    }
    expect(plan.params).toEqual(
      expect.arrayContaining([
        "acme'; --",
        'alice',
        'p1',
        ['viking://user/alice/memories%_'],
        ['viking://user/alice/memories\\%\\_/%'],
        "x' OR 1=1 --",
        'emb$1',
        "'obrien'",
      ]),
    );
    expect(
      (plan.sql.match(/\$(\d+)/g) ?? []).map((p) => Number(p.slice(1))).every((n) => n >= 1 && n <= plan.params.length),
    ).toBe(true);
  });

  it('unites the lexical and vector candidates and scores both signals', () => {
    const sql = buildSearchSql(base, input)!.sql;
    expect(sql).toContain('lex_hits AS');
    expect(sql).toContain('vec_hits AS');
    expect(sql).toContain('SELECT uri FROM lex_hits UNION SELECT uri FROM vec_hits');
    expect(sql).toContain('n.embedding::vector(2) <=>');
  });

  it('normalises the lexical weight by node length against twice the view average (BM25, each term once)', () => {
    const plain = buildSearchSql(base, input)!;
    expect(plain.sql).not.toContain('length(n.search_tsv)');
    const normed = buildSearchSql(base, { ...input, avgLength: 37.5 })!;
    expect(normed.sql).toContain('length(n.search_tsv)::float8');
    expect(normed.sql).toMatch(/least\(1::float8, 2\.2 \/ \(1 \+ 1\.2 \* \(1 - 0\.75 \+ 0\.75 \*/);
    // The pivot is LENGTH_PIVOT (2) times the average: nodes up to twice the average keep their share.
    expect(normed.params).toContain(75);
  });

  it('drops the lexical side when no term occurs, and the vector side without a vector', () => {
    expect(buildSearchSql(base, { ...input, weights: [{ term: 'zzz', df: 0, idf: 3 }] })!.sql).not.toContain(
      'lex_hits',
    );
    expect(buildSearchSql({ ...base, vector: null }, { ...input, vector: null })!.sql).not.toContain('vec_hits');
    expect(buildSearchSql({ ...base, vector: null }, { ...input, vector: null, weights: [] })).toBeNull();
  });

  it('decides tiers in SQL text only from levels, and returns null when no tier is admitted', () => {
    const files = buildSearchSql({ ...base, filter: null, levels: [2] }, input)!.sql;
    expect(files).toContain("(n.kind = 'file' AND TRUE) OR (n.kind = 'directory' AND (FALSE OR FALSE))");
    const none = { op: 'must', field: 'level', conds: [5] } as FilterNode;
    expect(buildSearchSql({ ...base, filter: none }, input)).toBeNull();
    expect(buildSearchSql({ ...base, filter: null, levels: [] }, input)!.sql).toContain(
      "(n.kind = 'file' AND TRUE) OR (n.kind = 'directory' AND (TRUE OR TRUE))",
    );
  });
});

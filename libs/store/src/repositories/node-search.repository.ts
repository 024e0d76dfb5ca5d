import { abstractIsWholeBody, StageTimer, trimEndChar } from '@app/kernel';
import { Db } from '../db/db.port';
import { filterToSql, SqlFragment } from './node-search-filter';
import { NodeSearchHit, NodeSearchQuery, RankingWeights, SearchAnswer } from './node-search.types';
import { DF_CAP, TermStats, TermWeight, tsQuoted } from './node-search-term-stats';
import { refusedPattern } from './regex-refusal';
import { scopeSql } from './scope';

/** Measured on LoCoMo + a Chinese set (bench/find-eval.ts): lexical carries the ranking, vectors add recall. */
export const DEFAULT_RANKING: RankingWeights = { lexical: 0.6, vector: 0.4 };

/** Hard ceiling on `limit`: a find is a ranked shortlist, not an export. */
export const MAX_FIND_LIMIT = 1000;
const MAX_TERMS = 24;
// Most lexical candidates scored per query, whatever the terms.
const LEX_SCAN_CAP = 2000;
/**
 * BM25 constants (docs/context.md, "Lexical scoring"): k1 the usual Okapi value; b the share of the
 * weight that depends on length.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * Length at which the factor starts to bite, in multiples of the view's average node length. Measured
 * on bench:locomo (docs/context.md, "Lexical scoring"): at 1 the ~200-token event parts the offline
 * extractor writes lost to their own short entity notes; at 2 whole-session logs still drop well below
 * the notes that state a fact.
 */
export const LENGTH_PIVOT = 2;

interface Row {
  uri: string;
  kind: 'file' | 'directory';
  context_type: NodeSearchHit['contextType'];
  abstract: string;
  overview: string;
  tags: string[] | null;
  indexed: boolean;
  l0: boolean;
  lex: number | string | null;
  cos: number | string | null;
}

/**
 * Hybrid search over `nodes`: candidates are the top K by vector distance (pgvector `<=>`, HNSW when
 * present) united with the top K by lexical weight (GIN over `search_tsv`), then re-scored together.
 * The lexical weight of a node is the IDF-weighted share of the query terms it contains, discounted by
 * BM25's length normalisation for nodes longer than the view's average (docs/context.md, "Lexical
 * scoring"), so exact names and identifiers score high whatever the embedder thinks, and a long log
 * does not outrank the short note about the same thing; score = w_lex·lex + w_vec·max(0, cos) ∈ 0..1.
 * Identity scoping (account, user space, actor peer view) is part of every statement.
 */
export class NodeSearchRepository {
  private readonly termStats = new TermStats();

  constructor(
    private readonly db: Db,
    private readonly weights: RankingWeights = DEFAULT_RANKING,
  ) {}

  /**
   * `timer`, when given, gets the `terms`, `sql` and `score` stages (docs/architecture.md, "Stage timings").
   * `signal`: the find job was withdrawn; its search statement is cancelled (docs/limits-and-security.md,
   * "A client that goes away"). The term statistics' reads are not: one read serves every find weighing
   * the same terms at that moment, and each is an index probe.
   */
  async search(q: NodeSearchQuery, timer?: StageTimer, signal?: AbortSignal): Promise<NodeSearchHit[]> {
    return (await this.searchCorrecting(q, timer, signal)).hits;
  }

  /**
   * {@link search}, also naming the query words read as a variant (docs/context.md, "Misspelt query words"):
   * a context request focuses its excerpts on them and lists them in `explain`.
   */
  async searchCorrecting(q: NodeSearchQuery, timer?: StageTimer, signal?: AbortSignal): Promise<SearchAnswer> {
    const time = <T>(stage: string, work: () => Promise<T> | T): Promise<T> =>
      timer ? timer.time(stage, work) : Promise.resolve(work());
    const limit = Math.min(Math.max(Math.trunc(q.limit), 0), MAX_FIND_LIMIT);
    const vector = q.vector && q.vector.values.length > 0 ? q.vector : null;
    const terms = cleanTerms(q.terms);
    if (limit === 0 || (!vector && terms.length === 0)) return { hits: [], corrected: [] };
    const k = Math.min(Math.max(limit * 3, 40), 1000);
    const weights = terms.length ? await time('terms', () => this.termStats.weigh(this.db, q.identity, terms)) : [];
    const avgLength = weights.some((w) => w.df > 0)
      ? await time('terms', () => this.termStats.averageLength(this.db, q.identity))
      : undefined;
    const corrected = weights.flatMap((w) => (w.correctedFrom ? [{ from: w.correctedFrom, to: w.term }] : []));
    const plan = buildSearchSql(q, { k, vector, weights, avgLength, now: q.now ?? new Date() });
    if (!plan) return { hits: [], corrected };
    // Every connection already sets iterative HNSW scans and no JIT (docs/architecture.md, "Performance"),
    // so a find is one statement: with an iterative scan the LIMIT, not ef_search, decides how many
    // candidates the vector scan returns, and raising ef_search to the candidate count (a transaction
    // of four round trips) bought no recall against an exact scan (measured at 10k and 100k nodes).
    const { rows } = await time('sql', () =>
      this.db.query<Row>(plan.sql, plan.params, { signal }).catch(refusedPattern('filter regex')),
    );
    const hits = await time('score', () => this.rank(rows, limit, q.scoreThreshold ?? 0));
    return { hits, corrected };
  }

  private rank(rows: Row[], limit: number, threshold: number): NodeSearchHit[] {
    const hits = rows.map((r) => {
      const lexical = finite(r.lex);
      const vector = Math.max(0, finite(r.cos));
      const score = finite(this.weights.lexical * lexical + this.weights.vector * vector);
      const dir = r.kind === 'directory';
      const level = dir ? (r.l0 ? 0 : 1) : 2;
      return {
        uri: dir ? `${r.uri}/${level === 0 ? '.abstract.md' : '.overview.md'}` : r.uri,
        level,
        contextType: r.context_type,
        score,
        abstract: dir && level === 1 ? r.overview : r.abstract,
        tags: r.tags ?? [],
        // A directory's overview hit is its sidecar body itself; a file's abstract is its body only when indexed at
        // the current revision (a write clears indexed_at; the index job stores only at its own revision).
        wholeBody: dir ? level === 1 : r.indexed && abstractIsWholeBody(r.uri, r.abstract),
        lexical,
        vector,
      };
    });
    return hits
      .filter((h) => h.score > threshold)
      .sort((a, b) => b.score - a.score || (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
      .slice(0, limit);
  }
}

interface PlanInput {
  k: number;
  vector: NodeSearchQuery['vector'];
  weights: TermWeight[];
  now: Date;
  /** The owner view's average node length in distinct lexemes (TermStats.averageLength); unset: no length normalisation. */
  avgLength?: number;
}

/** The candidate-and-rescore statement, or null when the levels and filter admit no hit row at all. */
export function buildSearchSql(q: NodeSearchQuery, input: PlanInput): SqlFragment | null {
  const params: unknown[] = [];
  const bind = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const splice = (f: (first: number) => SqlFragment) => {
    const frag = f(params.length + 1);
    params.push(...frag.params);
    return frag.sql;
  };
  const levels = new Set(q.levels?.length ? q.levels : [0, 1, 2]);
  const tier = (level: number) =>
    !levels.has(level)
      ? 'FALSE'
      : q.filter
        ? splice((first) => filterToSql(q.filter!, { first, level, alias: 'n', now: input.now }))
        : 'TRUE';
  const [f0, f1, f2] = [tier(0), tier(1), tier(2)];
  if (f0 === 'FALSE' && f1 === 'FALSE' && f2 === 'FALSE') return null;

  const scope = splice((first) => scopeSql(q.identity, first, 'n'));
  const targets = q.targets.map((t) => trimEndChar(t, '/'));
  const inTargets = targets.length
    ? `(n.uri = ANY(${bind(targets)}::text[]) OR n.uri LIKE ANY(${bind(targets.map((t) => `${escapeLike(t)}/%`))}::text[]))`
    : 'TRUE';
  // Whether any node the caller may see lies in the targets, as a one-time filter (an uncorrelated
  // subquery the executor evaluates once, before the scans): a filtered HNSW scan over targets that hold
  // nothing (a user without peers, for the other-peer scan every context request makes) would walk the
  // whole index before giving up; this prefix lookup answers that in one index probe. Byte-order range
  // operators, so the (account_id, uri text_pattern_ops) index serves each prefix.
  // The node itself and its subtree are two EXISTS, not one OR: an OR is answered by a bitmap scan,
  // which reads every entry of the prefix range (a whole tenant for `viking://user/u`) before it can
  // say yes, where a plain index scan stops at the first visible row. The answer is computed once, in
  // its own CTE, for both candidate scans (docs/architecture.md, "Performance").
  const ctes: string[] = [];
  let gate = 'TRUE';
  if (targets.length) {
    const prefixes = bind(targets);
    const self = splice((first) => scopeSql(q.identity, first, 'g'));
    const below = splice((first) => scopeSql(q.identity, first, 'g'));
    ctes.push(`gate AS (SELECT EXISTS (SELECT 1 FROM unnest(${prefixes}::text[]) AS t(p)
      WHERE EXISTS (SELECT 1 FROM nodes g WHERE ${self} AND g.uri = t.p)
         OR EXISTS (SELECT 1 FROM nodes g WHERE ${below} AND g.uri ~>=~ (t.p || '/') AND g.uri ~<~ (t.p || '0'))) AS ok)`);
    gate = '(SELECT ok FROM gate)';
  }
  const tiers = `((n.kind = 'file' AND ${f2}) OR (n.kind = 'directory' AND (${f0} OR ${f1})))`;
  const where = `${gate} AND ${scope} AND ${inTargets} AND ${tiers}`;

  const sources: string[] = [];
  let lex = '0::float8';
  const idfSum = input.weights.reduce((s, w) => s + w.idf, 0);
  const matched = input.weights.filter((w) => w.df > 0);
  if (matched.length && idfSum > 0) {
    // Unrolled per term with constant tsqueries: evaluated on every lexical candidate, so no subplan.
    const parts = matched.map(
      (w) =>
        `CASE WHEN n.search_tsv @@ to_tsquery('muninn', ${bind(tsQuoted(w.term))}) THEN ${bind(w.idf)}::float8 ELSE 0 END`,
    );
    // BM25 with each term counted once (docs/context.md, "Lexical scoring"): a term's weight is
    // idf · (k1+1)/(1 + k1·(1 − b + b·len/pivot)), capped at idf, with pivot = LENGTH_PIVOT × the view's
    // average length: nodes up to twice the average keep the plain covered share (an event part beside
    // short notes is not penalised), and a node L pivots long keeps about 1/L of it. Term frequency is
    // left out on purpose: measured on bench:locomo, repetition let long logs outrank the short notes
    // that state the fact, and reading it needs a per-node pass over the whole tsvector.
    const length = input.avgLength
      ? `least(1::float8, ${BM25_K1 + 1} / (1 + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * length(n.search_tsv)::float8 / ${bind(input.avgLength * LENGTH_PIVOT)}::float8)))`
      : '1::float8';
    lex = `((${parts.join(' + ')}) * ${length} / ${bind(idfSum)}::float8)`;
    // Terms in DF_CAP nodes or more are too common to pick candidates with (they would pull in much of
    // a large tenant); they still count in the score. With only such terms, the rarest one picks, and
    // the scan is bounded.
    const selective = matched.filter((w) => w.df < DF_CAP);
    const pickers = selective.length ? selective : [matched.reduce((a, b) => (b.df < a.df ? b : a))];
    const any = `to_tsquery('muninn', ${bind(pickers.map((w) => tsQuoted(w.term)).join(' | '))})`;
    ctes.push(
      `lex_hits AS (SELECT uri, lex FROM (SELECT n.uri, ${lex} AS lex FROM nodes n WHERE ${where} AND n.search_tsv @@ ${any} LIMIT ${bind(LEX_SCAN_CAP)}) s ORDER BY lex DESC, uri LIMIT ${bind(input.k)})`,
    );
    sources.push('SELECT uri FROM lex_hits');
  }
  let cos = '0::float8';
  if (input.vector) {
    const dim = input.vector.values.length;
    if (!Number.isInteger(dim) || dim < 1 || dim > 16000) throw new RangeError(`unsupported vector dimension ${dim}`);
    // The dimension is spelled into the SQL (it is ours, not the caller's) so the expression matches
    // the per-dimension HNSW index built by ensureVectorIndex.
    const distance = `n.embedding::vector(${dim}) <=> ${bind(vectorLiteral(input.vector.values))}::vector(${dim})`;
    const usable = `n.embedder_id = ${bind(input.vector.embedderId)} AND vector_dims(n.embedding) = ${dim}`;
    ctes.push(
      `vec_hits AS (SELECT n.uri FROM nodes n WHERE ${where} AND ${usable} ORDER BY ${distance} LIMIT ${bind(input.k)})`,
    );
    sources.push('SELECT uri FROM vec_hits');
    cos = `(CASE WHEN ${usable} THEN 1 - (${distance}) ELSE 0 END)`;
  }
  if (sources.length === 0) return null;
  const sql = `WITH ${ctes.join(',\n')}
    SELECT n.uri, n.kind, n.context_type, n.abstract, n.overview, n.tags, n.indexed_at IS NOT NULL AS indexed, (${f0}) AS l0, ${lex} AS lex, ${cos} AS cos
    FROM (${sources.join(' UNION ')}) c JOIN nodes n ON n.account_id = ${bind(q.identity.accountId)} AND n.uri = c.uri`;
  return { sql, params };
}

/** Distinct, non-empty query terms, at most MAX_TERMS, without the characters tsquery quoting reserves. */
function cleanTerms(terms: string[]): string[] {
  const out: string[] = [];
  for (const raw of terms) {
    const t = raw.replace(/['\\]/g, '').trim();
    if (t && !out.includes(t)) out.push(t);
    if (out.length === MAX_TERMS) break;
  }
  return out;
}

// The calls of one find batch share their query's vector (FindService embeds each query once), so its
// literal is spelled once too: 512 numbers through toFixed were a visible share of a request's CPU.
const literals = new WeakMap<Float32Array, string>();

function vectorLiteral(v: Float32Array): string {
  let text = literals.get(v);
  if (text === undefined) {
    const parts = new Array<string>(v.length);
    // Zeros (most of a hashed embedding) and non-finite values skip the number formatting.
    for (let i = 0; i < v.length; i++) parts[i] = v[i] === 0 || !Number.isFinite(v[i]) ? '0' : String(+v[i].toFixed(6));
    text = `[${parts.join(',')}]`;
    literals.set(v, text);
  }
  return text;
}

function finite(v: number | string | null): number {
  const n = typeof v === 'string' ? Number(v) : (v ?? 0);
  return Number.isFinite(n) ? n : 0;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

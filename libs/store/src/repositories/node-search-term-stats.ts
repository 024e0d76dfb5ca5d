import { correctable, MAX_CORRECTED_TERMS, spellingVariants, type Identity } from '@app/kernel';
import { Db } from '../db/db.port';
import { TermStatsCache } from './node-search-term-cache';

type Tx = Pick<Db, 'query' | 'kind'>;

/** A query term with its document frequency among the nodes the identity's owner view holds, and its IDF. */
export interface TermWeight {
  term: string;
  df: number;
  idf: number;
  /** The query's own word, when `term` is the variant that stands in for it (docs/context.md, "Misspelt query words"). */
  correctedFrom?: string;
}

/** Terms in fewer nodes than this are selective enough to pick lexical candidates with. */
export const DF_CAP = 200;
/** A lexeme whose owner view has more delta rows than this is compacted after it is read. */
export const COMPACT_ROWS = 16;
/** Nodes sampled for the average length of an owner view (bounded work, remembered like the frequencies). */
export const LENGTH_SAMPLE = 2000;

/**
 * BM25-style IDF of query terms from the document frequencies the store keeps in `term_df`
 * (docs/architecture.md, "Performance"): one index lookup per query, whatever the tenant's size.
 * A user's view counts account-shared nodes and the user's own; root counts the whole account. Other
 * users' nodes never enter a user's statistics, so scores cannot reveal what they hold. Figures are
 * remembered briefly per view (IDF moves slowly).
 */
export class TermStats {
  private readonly cache = new TermStatsCache();
  // The variant found for an unmatched word, per view; a word with none is looked up again next time (it
  // may be written meanwhile, like a term nothing holds yet).
  private readonly corrections = new TermStatsCache<string>();
  // Lookups in progress, shared like `reading` (a context request's finds correct the same words at once).
  private readonly looking = new Map<string, ReturnType<typeof lookUpVariants>>();
  private readonly compacting = new Set<string>();
  // Reads in progress by view and missing terms: a context request's finds (own space, peer scan) weigh
  // the same terms at the same moment, and share one read instead of each making its own.
  private readonly reading = new Map<string, ReturnType<TermStats['read']>>();

  /** `db` is not a transaction: a compaction it starts may outlive the call. */
  async weigh(tx: Tx, identity: Identity, terms: string[]): Promise<TermWeight[]> {
    const owner = identity.role === 'root' ? null : identity.userId;
    const key = `${identity.accountId}\u0000${owner ?? '*'}\u0000`;
    const df = new Map<string, number>();
    for (const t of terms) {
      const hit = this.cache.get(key + t);
      if (hit !== undefined) df.set(t, hit);
    }
    let total = this.cache.get(key);
    const missing = terms.filter((t) => !df.has(t));
    if (missing.length || total === undefined) {
      const read = await joined(this.reading, `${key}\u0000${missing.join('\u0000')}`, () =>
        this.read(tx, identity.accountId, owner, missing),
      );
      total = read.total;
      this.cache.set(key, total);
      for (const t of missing) {
        const d = read.df.get(t) ?? 0;
        df.set(t, d);
        // A term nothing holds yet is not remembered: a search leaves it out of lexical matching, so a
        // cached 0 hid a file written with that word a moment later from every lexical match of the
        // next minute (an agent searching for what it just stored). Reading it again is one index probe.
        if (d > 0) this.cache.set(key + t, d);
      }
      if (read.crowded.length) this.compact(tx, identity.accountId, read.crowded);
    }
    const fixed = await this.correct(tx, identity.accountId, owner, key, terms, df);
    const n = Math.max(total, 1);
    return terms.map((word) => {
      const variant = fixed.get(word);
      const term = variant ?? word;
      const d = variant ? (df.get(variant) ?? 0) : (df.get(word) ?? 0);
      // A term nothing contains still counts (as if one node had it): the score says how much of the
      // query a node covers, so a query of unknown words cannot give a weak match a perfect score.
      const eff = Math.min(Math.max(d, 1), n);
      const idf = Math.log(1 + (n - eff + 0.5) / (eff + 0.5));
      return variant ? { term, df: d, idf, correctedFrom: word } : { term, df: d, idf };
    });
  }

  /**
   * Variants for the query's unmatched words (docs/context.md, "Misspelt query words"): for each of the
   * first {@link MAX_CORRECTED_TERMS} correctable words no node of the view holds, the one-edit variant
   * the most nodes hold, if any; its frequency is added to `df`. One statement for all of them, index
   * probes of the term table's lexemes (at most about a thousand variants per word), no scan.
   */
  private async correct(
    tx: Tx,
    accountId: string,
    owner: string | null,
    key: string,
    terms: string[],
    df: Map<string, number>,
  ) {
    const fixed = new Map<string, string>();
    const unmatched = terms.filter((t) => (df.get(t) ?? 0) === 0 && correctable(t)).slice(0, MAX_CORRECTED_TERMS);
    const asked: string[] = [];
    for (const word of unmatched) {
      const hit = this.corrections.get(`${key}${word}`);
      const known = hit === undefined ? undefined : this.cache.get(key + hit);
      if (hit !== undefined && known !== undefined) {
        fixed.set(word, hit);
        df.set(hit, known);
      } else asked.push(word);
    }
    if (asked.length === 0) return withoutDuplicates(fixed, terms);
    const best = await joined(this.looking, `${key}\u0000${asked.join('\u0000')}`, () =>
      lookUpVariants(tx, accountId, owner, asked),
    );
    for (const [i, { variant, df: d }] of best) {
      fixed.set(asked[i], variant);
      df.set(variant, d);
      this.corrections.set(`${key}${asked[i]}`, variant);
      this.cache.set(key + variant, d);
    }
    return withoutDuplicates(fixed, terms);
  }

  /**
   * The average length of a node (distinct lexemes of `search_tsv`) in the identity's owner view, for
   * BM25's length normalisation (docs/context.md, "Lexical scoring"): measured on at most LENGTH_SAMPLE
   * nodes of the view and remembered like the frequencies. At least 1.
   */
  async averageLength(tx: Tx, identity: Identity): Promise<number> {
    const owner = identity.role === 'root' ? null : identity.userId;
    const key = `${identity.accountId}\u0000${owner ?? '*'}\u0001length`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const { rows } = await tx.query<{ avg: number | string | null }>(
      `SELECT avg(length(s.search_tsv))::float8 AS avg FROM (SELECT search_tsv FROM nodes
         WHERE account_id = $1 AND ($2::text IS NULL OR owner_user_id IS NULL OR owner_user_id = $2) LIMIT $3) s`,
      [identity.accountId, owner, LENGTH_SAMPLE],
    );
    const avg = Math.max(1, Number(rows[0]?.avg ?? 1) || 1);
    this.cache.set(key, avg);
    return avg;
  }

  /**
   * Each term is split and stemmed by the 'muninn' configuration like search_text; a term of several
   * lexemes gets the smallest of their frequencies (an upper bound of the nodes holding them all).
   * The lexemes are one array, so both columns of the index bound the read: as `IN (SELECT …)` the
   * planner, misjudging a table autovacuum had not analysed yet, hashed every row of the account
   * instead (measured: 16 ms over 30k rows at 10k nodes; 0.2 ms this way).
   */
  private async read(tx: Tx, accountId: string, owner: string | null, terms: string[]) {
    const { rows } = await tx.query<{ i: number; lexeme: string; df: string | number; n: number }>(
      `WITH q AS (SELECT t.i::int AS i, l.lexeme FROM unnest($1::text[]) WITH ORDINALITY AS t(term, i),
                    unnest(tsvector_to_array(to_tsvector('muninn', t.term))) AS l(lexeme)
                  UNION ALL SELECT 0, ''),
            s AS (SELECT d.lexeme, sum(d.delta) AS df, count(*)::int AS n FROM term_df d
                  WHERE d.account_id = $2 AND d.lexeme = ANY(ARRAY(SELECT lexeme FROM q))
                    AND ($3::text IS NULL OR d.owner_id IN ('', $3::text))
                  GROUP BY d.lexeme)
       SELECT q.i, q.lexeme, coalesce(s.df, 0) AS df, coalesce(s.n, 0) AS n FROM q LEFT JOIN s USING (lexeme)`,
      [terms, accountId, owner],
    );
    const df = new Map<string, number>();
    let total = 0;
    const crowded: string[] = [];
    for (const r of rows) {
      const d = Math.max(0, Number(r.df));
      if (r.n > COMPACT_ROWS) crowded.push(r.lexeme);
      if (r.i === 0) total = d;
      else df.set(terms[r.i - 1], Math.min(df.get(terms[r.i - 1]) ?? Infinity, d));
    }
    return { df, total, crowded };
  }

  /**
   * Folds the delta rows of `lexemes` into one row per owner view, in one statement and in the background
   * (a find never waits for it). Concurrent writers only insert, so they are never blocked; an advisory
   * lock keeps two compactions of one account from locking rows in different orders.
   */
  private compact(tx: Tx, accountId: string, lexemes: string[]): void {
    const key = `${accountId}\u0000${lexemes.sort().join('\u0000')}`;
    if (this.compacting.has(key)) return;
    this.compacting.add(key);
    void compactTermDf(tx, accountId, lexemes)
      .catch(() => undefined)
      .finally(() => this.compacting.delete(key));
  }
}

/**
 * The one-edit variant of each word that most nodes of the view hold, by the word's index in `words`. A
 * variant's lexeme is its stem from the configuration's own dictionary (`ts_lexize`, what `to_tsvector`
 * gives a word of letters only, at a twentieth of its cost: measured 0.4 against 11 ms for 2,400 words on
 * PostgreSQL); the lexemes are probed in the term table's index, as the frequencies are.
 */
async function lookUpVariants(tx: Tx, accountId: string, owner: string | null, words: string[]) {
  const index: number[] = [];
  const variants: string[] = [];
  words.forEach((word, i) => {
    for (const v of spellingVariants(word)) {
      index.push(i);
      variants.push(v);
    }
  });
  const { rows } = await tx.query<{ i: number; variant: string; df: string | number }>(
    `WITH v AS (SELECT t.i, t.variant, (ts_lexize('muninn_stem', t.variant))[1] AS lexeme
                FROM unnest($1::int[], $2::text[]) AS t(i, variant)),
          s AS (SELECT d.lexeme, sum(d.delta) AS df FROM term_df d
                WHERE d.account_id = $3 AND d.lexeme = ANY(ARRAY(SELECT DISTINCT lexeme FROM v WHERE lexeme IS NOT NULL))
                  AND ($4::text IS NULL OR d.owner_id IN ('', $4::text))
                GROUP BY d.lexeme HAVING sum(d.delta) > 0)
     SELECT v.i, v.variant, s.df FROM v JOIN s USING (lexeme)`,
    [index, variants, accountId, owner],
  );
  const best = new Map<number, { variant: string; df: number }>();
  for (const r of rows) {
    const d = Number(r.df);
    const seen = best.get(r.i);
    // The variant most nodes hold; equal counts, the first in code point order (the same answer every time).
    if (!seen || d > seen.df || (d === seen.df && r.variant < seen.variant))
      best.set(r.i, { variant: r.variant, df: d });
  }
  return best;
}

/** The read in progress under `key` in `flights`, or `start`'s, kept there until it settles. */
function joined<T>(flights: Map<string, Promise<T>>, key: string, start: () => Promise<T>): Promise<T> {
  let pending = flights.get(key);
  if (!pending) {
    pending = start().finally(() => flights.delete(key));
    flights.set(key, pending);
  }
  return pending;
}

/** A variant that is already a word of the query adds nothing: that word is left unmatched instead. */
function withoutDuplicates(fixed: Map<string, string>, terms: string[]): Map<string, string> {
  const taken = new Set(terms.filter((t) => !fixed.has(t)));
  for (const [word, variant] of fixed) {
    if (taken.has(variant)) fixed.delete(word);
    else taken.add(variant);
  }
  return fixed;
}

/** See {@link TermStats.compact}; returns how many delta rows were folded (0 when another compaction held the lock). */
export async function compactTermDf(db: Pick<Db, 'query'>, accountId: string, lexemes: string[]): Promise<number> {
  const { rows } = await db.query<{ folded: number }>(
    `WITH lock AS (SELECT pg_try_advisory_xact_lock(4242090, hashtext($1)) AS ok),
          d AS (DELETE FROM term_df WHERE account_id = $1 AND lexeme = ANY($2::text[]) AND (SELECT ok FROM lock)
                RETURNING owner_id, lexeme, delta),
          i AS (INSERT INTO term_df (account_id, owner_id, lexeme, delta)
                SELECT $1, owner_id, lexeme, sum(delta) FROM d GROUP BY owner_id, lexeme HAVING sum(delta) <> 0)
     SELECT count(*)::int AS folded FROM d`,
    [accountId, lexemes],
  );
  return rows[0]?.folded ?? 0;
}

/**
 * One term as a quoted tsquery operand: the 'muninn' configuration then splits and stems it exactly like search_text.
 * Quotes and backslashes, the only characters special inside the operand, are dropped.
 */
export function tsQuoted(term: string): string {
  return `'${term.replace(/['\\]/g, '')}'`;
}

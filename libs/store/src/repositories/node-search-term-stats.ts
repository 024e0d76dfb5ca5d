import type { Identity } from '@app/kernel';
import { Db } from '../db/db.port';
import { TermStatsCache } from './node-search-term-cache';
import { scopeSql } from './scope';

type Tx = Pick<Db, 'query' | 'kind'>;

/** A query term with its document frequency among the nodes the identity sees, and its IDF. */
export interface TermWeight {
  term: string;
  /** Exact below DF_CAP; at or above it, estimated from a sample. */
  df: number;
  idf: number;
}

/** Terms in fewer nodes than this are counted exactly (and are selective enough to pick candidates). */
export const DF_CAP = 200;
// Common terms are estimated from the share of a sample of this many nodes that contains them, and the
// node count is counted up to N_CAP: weighting a query costs a bounded amount of work at any size.
const SAMPLE = 2000;
const N_CAP = 50_000;

/**
 * BM25-style IDF of query terms, computed in SQL within the identity's scope and remembered briefly
 * (IDF moves slowly; counting is the costly part of weighting a query).
 */
export class TermStats {
  private readonly cache = new TermStatsCache();

  async weigh(tx: Tx, identity: Identity, terms: string[]): Promise<TermWeight[]> {
    const key = `${identity.accountId}\u0000${identity.role === 'root' ? '*' : identity.userId}\u0000${identity.actorPeerId ?? ''}\u0000`;
    const df = new Map<string, number>();
    for (const t of terms) {
      const hit = this.cache.get(key + t);
      if (hit !== undefined) df.set(t, hit);
    }
    let total = this.cache.get(key);
    const missing = terms.filter((t) => !df.has(t));
    if (missing.length || total === undefined) {
      const counted = await this.count(tx, identity, missing);
      total = counted.total;
      this.cache.set(key, total);
      const common = missing.filter((t) => counted.df.get(t)! >= DF_CAP);
      const shares = common.length ? await this.sample(tx, identity, common) : new Map<string, number>();
      for (const t of missing) {
        const d = shares.has(t) ? Math.max(DF_CAP, Math.round(shares.get(t)! * total)) : counted.df.get(t)!;
        df.set(t, d);
        this.cache.set(key + t, d);
      }
    }
    const n = Math.max(total, 1);
    return terms.map((term) => {
      const d = df.get(term) ?? 0;
      // A term nothing contains still counts (as if one node had it): the score says how much of the
      // query a node covers, so a query of unknown words cannot give a weak match a perfect score.
      const eff = Math.min(Math.max(d, 1), n);
      return { term, df: d, idf: Math.log(1 + (n - eff + 0.5) / (eff + 0.5)) };
    });
  }

  /** Exact document frequencies capped at DF_CAP (GIN lookups), and the scope size capped at N_CAP. */
  private async count(tx: Tx, identity: Identity, terms: string[]): Promise<{ df: Map<string, number>; total: number }> {
    const scope = scopeSql(identity, 3, 'n');
    const visible = `SELECT 1 FROM nodes n WHERE ${scope.sql}`;
    const { rows } = await tx.query<{ i: number; df: number; total: number }>(
      `SELECT t.i::int AS i, (SELECT count(*) FROM (${visible} AND n.search_tsv @@ to_tsquery('muninn', t.q) LIMIT ${DF_CAP}) s)::int AS df, c.total
       FROM (SELECT count(*)::int AS total FROM (${visible} LIMIT $2) s) c
       LEFT JOIN unnest($1::text[]) WITH ORDINALITY AS t(q, i) ON TRUE`,
      [terms.map(tsQuoted), N_CAP, ...scope.params],
    );
    const df = new Map<string, number>();
    for (const r of rows) if (r.i) df.set(terms[r.i - 1], r.df);
    return { df, total: rows[0]?.total ?? 0 };
  }

  /** Share of a sample of the scope's nodes containing each term. */
  private async sample(tx: Tx, identity: Identity, terms: string[]): Promise<Map<string, number>> {
    const scope = scopeSql(identity, 3, 'n');
    const { rows } = await tx.query<{ i: number; share: number }>(
      `SELECT t.i::int AS i, coalesce(avg((s.search_tsv @@ to_tsquery('muninn', t.q))::int), 0)::float8 AS share
       FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i)
       LEFT JOIN (SELECT n.search_tsv FROM nodes n WHERE ${scope.sql} LIMIT $2) s ON TRUE
       GROUP BY t.i`,
      [terms.map(tsQuoted), SAMPLE, ...scope.params],
    );
    return new Map(rows.map((r) => [terms[r.i - 1], Number(r.share)]));
  }
}

/**
 * One term as a quoted tsquery operand: the 'muninn' configuration then splits and stems it exactly like search_text.
 * Quotes and backslashes, the only characters special inside the operand, are dropped.
 */
export function tsQuoted(term: string): string {
  return `'${term.replace(/['\\]/g, '')}'`;
}

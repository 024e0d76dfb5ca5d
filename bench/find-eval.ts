/**
 * Retrieval quality of the store's hybrid search (evaluation only; LoCoMo is CC BY-NC and never shipped).
 * Loads every LoCoMo dev conversation (one account each) and the Chinese check set into a throw-away
 * PostgreSQL database, then ranks with several lexical/vector weightings through NodeSearchRepository.
 *   npm run bench:find -- --eval [--locomo FILE] [--zh FILE]   (DATABASE_URL or postgres://root@127.0.0.1:5432/test)
 */
import { resolve } from 'node:path';
import { HashingEmbedder } from '@app/embed';
import { Identity } from '@app/kernel';
import { bulkInsertIndexed, ensureVectorIndex, NodeSearchRepository, PgDb, RankingWeights, migrate } from '@app/store';
import { createTestDatabase } from '@app/testing';
import { queryTerms } from '../apps/retriever/src/find/query-terms';
import { Corpus, finishStats, indexFiles, loadLocomo, loadZh, RecallStats, scoreRanking } from './find-data';

const WEIGHTINGS: [string, RankingWeights][] = [
  ['lexical only', { lexical: 1, vector: 0 }],
  ['vector only', { lexical: 0, vector: 1 }],
  ['0.8 lex + 0.2 vec', { lexical: 0.8, vector: 0.2 }],
  ['0.7 lex + 0.3 vec', { lexical: 0.7, vector: 0.3 }],
  ['0.6 lex + 0.4 vec', { lexical: 0.6, vector: 0.4 }],
  ['0.5 lex + 0.5 vec', { lexical: 0.5, vector: 0.5 }],
  ['0.4 lex + 0.6 vec', { lexical: 0.4, vector: 0.6 }],
];

interface Loaded {
  account: string;
  corpus: Corpus;
  uriOf: Map<string, string>;
}

/** Equal reciprocal-rank fusion (k = 60) of the lexical-only and vector-only lists: the usual default. */
function rrfRow(sets: Loaded[], lex: string[][], vec: string[][]): string {
  const en: Record<string, RecallStats> = {};
  const cn: Record<string, RecallStats> = {};
  let qi = 0;
  for (const set of sets) {
    for (const q of set.corpus.queries) {
      const s = new Map<string, number>();
      for (const list of [lex[qi], vec[qi]]) list.forEach((id, r) => s.set(id, (s.get(id) ?? 0) + 1 / (61 + r)));
      const fused = [...s.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
      scoreRanking(set.account === 'zh' ? cn : en, q.category, fused, q.gold);
      qi++;
    }
  }
  const e = finishStats(en).all;
  const c = finishStats(cn).zh;
  const pct = (x: number) => (x * 100).toFixed(1);
  return `| RRF(lexical, vector), k=60 | ${pct(e.r5)} | ${pct(e.r10)} | ${pct(e.r20)} | ${e.mrr.toFixed(3)} | ${pct(c.r1)} | ${pct(c.r5)} | ${c.mrr.toFixed(3)} | - | - |`;
}

export async function runEval(args: Map<string, string>): Promise<void> {
  const repo = process.cwd();
  const locomo = loadLocomo(
    args.get('locomo') ?? resolve(repo, '..', 'shared', 'datasets', 'locomo', 'locomo-dev.json'),
  );
  const zh = loadZh(args.get('zh') ?? resolve(repo, 'bench', 'data', 'zh-check.json'));
  const base = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
  const tdb = await createTestDatabase(base);
  const db = new PgDb(tdb.url);
  try {
    await migrate(db);
    const embedder = new HashingEmbedder();
    await ensureVectorIndex(db, embedder.dim);
    const sets: Loaded[] = [];
    let i = 0;
    for (const corpus of [...locomo.values(), zh]) {
      const account = corpus === zh ? 'zh' : `locomo${i++}`;
      const uriOf = new Map(corpus.docs.map((d, j) => [d.id, `viking://user/u/memories/events/m${j}.md`]));
      const nodes = await indexFiles(
        embedder,
        corpus.docs.map((d) => ({ uri: uriOf.get(d.id)!, content: d.text })),
      );
      for (let b = 0; b < nodes.length; b += 500)
        await bulkInsertIndexed(db, account, nodes.slice(b, b + 500), embedder.id);
      sets.push({ account, corpus, uriOf });
    }
    await db.exec('VACUUM ANALYZE nodes');
    const lines = [
      '| weighting | LoCoMo R@5 | R@10 | R@20 | MRR | zh R@1 | zh R@5 | zh MRR | gold score mean | top non-gold mean |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ];
    // Ranked ids per weighting and query, to fuse the two single-signal lists by RRF afterwards.
    const ranked = new Map<string, string[][]>();
    for (const [name, weights] of WEIGHTINGS) {
      const search = new NodeSearchRepository(db, weights);
      const lists: string[][] = [];
      ranked.set(name, lists);
      const en: Record<string, RecallStats> = {};
      const cn: Record<string, RecallStats> = {};
      const gold: number[] = [];
      const other: number[] = [];
      for (const set of sets) {
        const idOf = new Map([...set.uriOf].map(([id, uri]) => [uri, id]));
        const identity: Identity = { accountId: set.account, userId: 'u', role: 'root', actorPeerId: null };
        for (const q of set.corpus.queries) {
          const [vec] = await embedder.embed([q.text]);
          const hits = await search.search({
            identity,
            targets: [],
            filter: null,
            levels: [2],
            limit: 50,
            scoreThreshold: null,
            vector: { values: vec, embedderId: embedder.id },
            terms: queryTerms(q.text),
          });
          const ids = hits.map((h) => idOf.get(h.uri) ?? h.uri);
          lists.push(ids);
          scoreRanking(set.account === 'zh' ? cn : en, q.category, ids, q.gold);
          const g = hits.find((h) => q.gold.includes(idOf.get(h.uri) ?? ''));
          const o = hits.find((h) => !q.gold.includes(idOf.get(h.uri) ?? ''));
          if (g) gold.push(g.score);
          if (o) other.push(o.score);
        }
      }
      const e = finishStats(en).all;
      const c = finishStats(cn).zh;
      const pct = (x: number) => (x * 100).toFixed(1);
      const mean = (xs: number[]) => (xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)).toFixed(3);
      lines.push(
        `| ${name} | ${pct(e.r5)} | ${pct(e.r10)} | ${pct(e.r20)} | ${e.mrr.toFixed(3)} | ${pct(c.r1)} | ${pct(c.r5)} | ${c.mrr.toFixed(3)} | ${mean(gold)} | ${mean(other)} |`,
      );
      console.log(lines[lines.length - 1]);
    }
    lines.push(rrfRow(sets, ranked.get('lexical only')!, ranked.get('vector only')!));
    console.log(
      `\nLoCoMo dev: ${sets.length - 1} conversations, ${sets.slice(0, -1).reduce((s, x) => s + x.corpus.queries.length, 0)} questions; zh: ${zh.queries.length} questions\n`,
    );
    console.log(lines.join('\n'));
  } finally {
    await db.close();
    await tdb.drop();
  }
}

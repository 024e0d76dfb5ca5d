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

interface Loaded { account: string; corpus: Corpus; uriOf: Map<string, string> }

export async function runEval(args: Map<string, string>): Promise<void> {
  const repo = process.cwd();
  const locomo = loadLocomo(args.get('locomo') ?? resolve(repo, '..', 'shared', 'datasets', 'locomo', 'locomo-dev.json'));
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
      const nodes = await indexFiles(embedder, corpus.docs.map((d) => ({ uri: uriOf.get(d.id)!, content: d.text })));
      for (let b = 0; b < nodes.length; b += 500) await bulkInsertIndexed(db, account, nodes.slice(b, b + 500), embedder.id);
      sets.push({ account, corpus, uriOf });
    }
    await db.exec('VACUUM ANALYZE nodes');
    const lines = ['| weighting | LoCoMo R@5 | R@10 | R@20 | MRR | zh R@1 | zh R@5 | zh MRR | gold score mean | top non-gold mean |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
    for (const [name, weights] of WEIGHTINGS) {
      const search = new NodeSearchRepository(db, weights);
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
            identity, targets: [], filter: null, levels: [2], limit: 20, scoreThreshold: null,
            vector: { values: vec, embedderId: embedder.id }, terms: queryTerms(q.text),
          });
          const ranked = hits.map((h) => idOf.get(h.uri) ?? h.uri);
          scoreRanking(set.account === 'zh' ? cn : en, q.category, ranked, q.gold);
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
      lines.push(`| ${name} | ${pct(e.r5)} | ${pct(e.r10)} | ${pct(e.r20)} | ${e.mrr.toFixed(3)} | ${pct(c.r1)} | ${pct(c.r5)} | ${c.mrr.toFixed(3)} | ${mean(gold)} | ${mean(other)} |`);
      console.log(lines[lines.length - 1]);
    }
    console.log(`\nLoCoMo dev: ${sets.length - 1} conversations, ${sets.slice(0, -1).reduce((s, x) => s + x.corpus.queries.length, 0)} questions; zh: ${zh.queries.length} questions\n`);
    console.log(lines.join('\n'));
  } finally {
    await db.close();
    await tdb.drop();
  }
}

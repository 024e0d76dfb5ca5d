/**
 * Shared by bench/find-eval.ts and bench/find-bench.ts: the evaluation corpora, and turning raw files
 * into indexed nodes with the same kernel functions and embedder input the retriever's IndexService uses.
 */
import type { Embedder } from '@app/embed';
import { fileAbstract, MEMORY_ABSTRACT_LIMIT, searchText } from '@app/kernel';
import type { IndexedNodeInput } from '@app/store';

export { loadLocomo, loadZh } from './eval-corpora';
export type { Corpus, Doc, Query } from './eval-corpora';

// Mirrors IndexService (apps/retriever/src/index/index.service.ts): name words + abstract are embedded,
// name words + abstract + content are the lexical text.
function baseNameWords(uri: string): string {
  return uri
    .slice(uri.lastIndexOf('/') + 1)
    .replace(/\.[a-z0-9]+$/i, '')
    .replace(/[_-]+/g, ' ');
}

/** Index files the way the retriever does, embedding in one batch. */
export async function indexFiles(
  embedder: Embedder,
  files: { uri: string; content: string; tags?: string[] }[],
): Promise<IndexedNodeInput[]> {
  const abstracts = files.map((f) => fileAbstract(f.uri, f.content, MEMORY_ABSTRACT_LIMIT));
  const vectors = await embedder.embed(files.map((f, i) => `${baseNameWords(f.uri)}\n${abstracts[i]}`.slice(0, 8000)));
  return files.map((f, i) => ({
    uri: f.uri,
    kind: 'file',
    content: f.content,
    abstract: abstracts[i],
    searchText: searchText(baseNameWords(f.uri), abstracts[i], f.content.slice(0, 20000)),
    embedding: vectors[i],
    tags: f.tags,
  }));
}

export interface RecallStats {
  n: number;
  r1: number;
  r5: number;
  r10: number;
  r20: number;
  mrr: number;
}

/** Accumulates evidence recall@k and MRR of ranked id lists against gold ids. */
export function scoreRanking(
  into: Record<string, RecallStats>,
  category: string,
  ranked: string[],
  gold: string[],
): void {
  const g = new Set(gold);
  for (const cat of [category, 'all']) {
    const st = (into[cat] ??= { n: 0, r1: 0, r5: 0, r10: 0, r20: 0, mrr: 0 });
    const hits = (k: number) => ranked.slice(0, k).filter((id) => g.has(id)).length / g.size;
    st.n++;
    st.r1 += hits(1);
    st.r5 += hits(5);
    st.r10 += hits(10);
    st.r20 += hits(20);
    const first = ranked.findIndex((id) => g.has(id));
    st.mrr += first < 0 ? 0 : 1 / (first + 1);
  }
}

export function finishStats(into: Record<string, RecallStats>): Record<string, RecallStats> {
  for (const st of Object.values(into)) for (const k of ['r1', 'r5', 'r10', 'r20', 'mrr'] as const) st[k] /= st.n;
  return into;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

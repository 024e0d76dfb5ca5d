/**
 * Shared by bench/find-eval.ts and bench/find-bench.ts: the evaluation corpora, and turning raw files
 * into indexed nodes with the same kernel functions and embedder input the retriever's IndexService uses.
 */
import { readFileSync } from 'node:fs';
import type { Embedder } from '@app/embed';
import { fileAbstract, searchText } from '@app/kernel';
import type { IndexedNodeInput } from '@app/store';

export interface Doc { id: string; text: string }
export interface Query { text: string; gold: string[]; category: string }
export interface Corpus { docs: Doc[]; queries: Query[] }

/** LoCoMo dev split: one corpus per conversation; a turn is `[date] Speaker: text [shares a photo: caption]`. */
export function loadLocomo(path: string): Map<string, Corpus> {
  type Turn = { speaker: string; dia_id: string; text: string; blip_caption?: string };
  type Sample = { sample_id: string; conversation: Record<string, unknown>; qa: { question: string; evidence: string[]; category: number }[] };
  const data = JSON.parse(readFileSync(path, 'utf8')) as Sample[];
  const out = new Map<string, Corpus>();
  for (const s of data) {
    const docs: Doc[] = [];
    for (const key of Object.keys(s.conversation)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m || !Array.isArray(s.conversation[key])) continue;
      const date = String(s.conversation[`session_${m[1]}_date_time`] ?? '');
      for (const t of s.conversation[key] as Turn[]) {
        const photo = t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : '';
        docs.push({ id: t.dia_id, text: `[${date}] ${t.speaker}: ${t.text}${photo}` });
      }
    }
    const ids = new Set(docs.map((d) => d.id));
    const queries: Query[] = [];
    for (const q of s.qa) {
      const gold = q.evidence.flatMap((e) => e.split(/[;,\s]+/)).filter((e) => ids.has(e));
      if (gold.length > 0) queries.push({ text: q.question, gold, category: `cat${q.category}` });
    }
    out.set(s.sample_id, { docs, queries });
  }
  return out;
}

/** The small Chinese set written for the embedder evaluation (bench/data/zh-check.json). */
export function loadZh(path: string): Corpus {
  const z = JSON.parse(readFileSync(path, 'utf8')) as { memories: Doc[]; questions: { text: string; gold: string[] }[] };
  return { docs: z.memories, queries: z.questions.map((q) => ({ ...q, category: 'zh' })) };
}

// Mirrors IndexService (apps/retriever/src/index/index.service.ts): name words + abstract are embedded,
// name words + abstract + content are the lexical text.
function baseNameWords(uri: string): string {
  return uri.slice(uri.lastIndexOf('/') + 1).replace(/\.[a-z0-9]+$/i, '').replace(/[_-]+/g, ' ');
}

/** Index files the way the retriever does, embedding in one batch. */
export async function indexFiles(embedder: Embedder, files: { uri: string; content: string; tags?: string[] }[]): Promise<IndexedNodeInput[]> {
  const abstracts = files.map((f) => fileAbstract(f.uri, f.content));
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

export interface RecallStats { n: number; r1: number; r5: number; r10: number; r20: number; mrr: number }

/** Accumulates evidence recall@k and MRR of ranked id lists against gold ids. */
export function scoreRanking(into: Record<string, RecallStats>, category: string, ranked: string[], gold: string[]): void {
  const g = new Set(gold);
  for (const cat of [category, 'all']) {
    const st = (into[cat] ??= { n: 0, r1: 0, r5: 0, r10: 0, r20: 0, mrr: 0 });
    const hits = (k: number) => ranked.slice(0, k).filter((id) => g.has(id)).length / g.size;
    st.n++; st.r1 += hits(1); st.r5 += hits(5); st.r10 += hits(10); st.r20 += hits(20);
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

/**
 * The baseline the issue asks Muninn to beat, computed in the same run over the same memories: plain
 * Okapi BM25 (k1 1.2, b 0.75) over each memory's whole text, then a greedy fill — memories in BM25 order,
 * each whole (`detail="full"`), skipped when it does not fit the budget. Same token estimate and rendering
 * as the server, so the blocks compare byte for byte.
 */
import { estimateTokens, renderEntry, searchText } from '@app/kernel';
import { MemoryFile } from './locomo-data';

const K1 = 1.2;
const B = 0.75;

export class Bm25Baseline {
  private readonly docs: { file: MemoryFile; tf: Map<string, number>; len: number; uri: string; category: string }[];
  private readonly df = new Map<string, number>();
  private readonly avgLen: number;

  constructor(files: MemoryFile[], root: string) {
    this.docs = files.map((file) => {
      const tf = new Map<string, number>();
      const terms = searchText(file.content).split(' ').filter(Boolean);
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      const kind = file.path.split('/')[0];
      const category = ['events', 'entities', 'preferences', 'experiences'].includes(kind) ? kind : 'memories';
      return { file, tf, len: terms.length, uri: `${root}/${file.path}`, category };
    });
    for (const d of this.docs) for (const t of d.tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.avgLen = this.docs.reduce((s, d) => s + d.len, 0) / Math.max(1, this.docs.length);
  }

  rank(query: string): { index: number; score: number }[] {
    const n = this.docs.length;
    const terms = [...new Set(searchText(query).split(' ').filter(Boolean))];
    const scored = this.docs.map((d, index) => {
      let score = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.len) / Math.max(1, this.avgLen)));
      }
      return { index, score };
    });
    return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.index - b.index);
  }

  /** The greedy block at `budget` tokens: `rendered` plus the served texts, like a context response. */
  serve(
    query: string,
    budget: number,
  ): { rendered: string; entries: { text: string }[]; tokens: number; served: string[] } {
    const ranked = this.rank(query);
    const top = ranked[0]?.score || 1;
    const parts: string[] = [];
    const entries: { text: string }[] = [];
    const served: string[] = [];
    let used = 0;
    for (const { index, score } of ranked) {
      const d = this.docs[index];
      const text = d.file.content.trim();
      const element = renderEntry({
        uri: d.uri,
        category: d.category as never,
        score: score / top,
        detail: 'full',
        text,
      });
      const cost = estimateTokens(element) + (parts.length ? 1 : 0);
      if (used + cost > budget) continue;
      used += cost;
      parts.push(element);
      entries.push({ text });
      served.push(d.file.path);
    }
    return { rendered: parts.join('\n'), entries, tokens: used, served };
  }
}

/**
 * The evaluation corpora shared by the embedder, find and LoCoMo benches, with no project imports so
 * the plain-tsc bench builds can compile it too.
 */
import { readFileSync } from 'node:fs';

export interface Doc {
  id: string;
  text: string;
}
export interface Query {
  text: string;
  gold: string[];
  category: string;
}
export interface Corpus {
  docs: Doc[];
  queries: Query[];
}

/** LoCoMo dev split: one corpus per conversation; a turn is `[date] Speaker: text [shares a photo: caption]`. */
export function loadLocomo(path: string): Map<string, Corpus> {
  type Turn = { speaker: string; dia_id: string; text: string; blip_caption?: string };
  type Sample = {
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: { question: string; evidence: string[]; category: number }[];
  };
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
  const z = JSON.parse(readFileSync(path, 'utf8')) as {
    memories: Doc[];
    questions: { text: string; gold: string[] }[];
  };
  return { docs: z.memories, queries: z.questions.map((q) => ({ ...q, category: 'zh' })) };
}

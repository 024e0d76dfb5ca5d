/**
 * Memory layouts for bench/locomo-bench.ts (issue 14): the same conversation written in the shapes agents
 * really use, so ranking and assembly are measured on more than one tuned layout.
 *   tuned   — the harness's ~200-token event parts with lead summaries, entities, preferences (default ingest)
 *   session — one event memory per session: `# Summary` = the dataset's session summary, then the whole ChatLog
 *   facts   — one small memory per fact of the dataset's `observation` field, tagged with its dia_ids
 *   mixed   — session + facts
 *   tuned+facts — tuned + facts
 * The dataset's summaries and observations are model-written notes an agent's own extraction would produce;
 * they never see the questions.
 */
import { readFileSync } from 'node:fs';
import { Conversation, MemoryFile, turnLine } from './locomo-data';
import { slug } from './locomo-text';

export const LAYOUTS = ['tuned', 'session', 'facts', 'mixed', 'tuned+facts'] as const;
export type Layout = (typeof LAYOUTS)[number];

export interface Fact {
  session: number;
  speaker: string;
  text: string;
  ids: string[];
}

export interface DatasetNotes {
  summaries: Map<number, string>;
  facts: Fact[];
}

const ID = /D\d+:\d+/g;

/** Session summaries and observation facts per conversation id (empty when the file has none). */
export function loadNotes(path: string): Map<string, DatasetNotes> {
  type Raw = { sample_id?: unknown; session_summary?: Record<string, unknown>; observation?: Record<string, unknown> };
  const data = JSON.parse(readFileSync(path, 'utf8')) as Raw[];
  const out = new Map<string, DatasetNotes>();
  for (const [i, sample] of data.entries()) {
    const summaries = new Map<number, string>();
    for (const [key, value] of Object.entries(sample.session_summary ?? {})) {
      const m = /^session_(\d+)_summary$/.exec(key);
      if (m && typeof value === 'string') summaries.set(Number(m[1]), value.trim());
    }
    const facts: Fact[] = [];
    for (const [key, perSession] of Object.entries(sample.observation ?? {})) {
      const session = Number(/^session_(\d+)_observation$/.exec(key)?.[1] ?? 0);
      for (const [speaker, list] of Object.entries((perSession ?? {}) as Record<string, unknown>)) {
        for (const fact of Array.isArray(list) ? list : []) {
          if (!Array.isArray(fact) || typeof fact[0] !== 'string') continue;
          const ids = [...new Set(String(fact[1] ?? '').match(ID) ?? [])];
          if (ids.length) facts.push({ session, speaker, text: fact[0].trim(), ids });
        }
      }
    }
    out.set(String(sample.sample_id ?? `conv-${i}`), { summaries, facts });
  }
  return out;
}

/** One event memory per session: the dataset's session summary, then every turn. */
export function sessionMemories(conv: Conversation, notes: DatasetNotes | undefined): MemoryFile[] {
  return conv.sessions.map((s) => {
    const summary = notes?.summaries.get(s.n) ?? `${s.longDate}, session ${s.n}.`;
    const name = `${s.isoDate ?? 'undated'}-s${String(s.n).padStart(2, '0')}`;
    return {
      path: `events/${name}.md`,
      content: `# Summary\n${summary}\n# ${s.isoDate ?? s.longDate} ChatLog:\n${s.turns.map(turnLine).join('\n')}\n`,
    };
  });
}

/** One small memory per observed fact: `[D1:3] 2023-05-08 Caroline attended …`. */
export function factMemories(conv: Conversation, notes: DatasetNotes | undefined): MemoryFile[] {
  const dateOf = new Map(conv.sessions.map((s) => [s.n, s.isoDate ?? s.longDate]));
  return (notes?.facts ?? []).map((f, i) => ({
    path: `facts/${slug(f.speaker)}-${String(i + 1).padStart(4, '0')}.md`,
    content: `${f.ids.map((id) => `[${id}]`).join(' ')} ${dateOf.get(f.session) ?? ''} ${f.text}\n`,
  }));
}

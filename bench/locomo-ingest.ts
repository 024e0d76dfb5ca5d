/**
 * Turns one LoCoMo conversation into the memory files an agent would have written, without an LLM:
 * event memories (`# Summary` + `# <date> ChatLog:` with `[dia_id] Speaker: text` lines,
 * docs/contract.md#tiers-and-sidecars),
 * per part of about 200 tokens (or per chunk of turns, or per session), the summary being the date line
 * and the part's opening turns (`lead`; `extractive`, `gold` and `none` are variants); entity memories (named things and the turns that mention
 * them); preference memories (first-person likes and dislikes, quoted with speaker and date). Every
 * memory keeps the dia_ids it came from. The `gold` summary variant uses the dataset's LLM-written
 * `session_summary`/`observation` annotations instead and is reported as such, never as the default.
 */
import { estimateTokens, NOT_NAMES } from '@app/kernel';
import { Conversation, MemoryFile, Session, Turn, turnLine } from './locomo-data';
import { clip, contentWords, Idf, informativeness, isCjk, sentences, slug } from './locomo-text';
import { LlmNotes, llmMemories } from './locomo-llm';

export type SummaryMode = 'extractive' | 'lead' | 'gold' | 'none';

export interface IngestOptions {
  /** Turns per event memory; 0 = one event memory per session. */
  chunk: number;
  /** Instead of `chunk`: split a session into even parts of at most this many ChatLog tokens (0 = off). */
  chunkTokens: number;
  /** Turns of the previous chunk repeated at the start of the next one. */
  overlap: number;
  /** Never cut a session right after a question: the answer stays in the question's memory. */
  keepAnswers: boolean;
  summary: SummaryMode;
  /** `lead` summaries: opening turns up to about this many tokens (at least one turn). */
  leadTokens: number;
  /** Summary sentences per 10 turns of an event memory (at least 1; 0 = the date line alone). */
  summaryRate: number;
  /** Longest summary sentence, in characters. */
  summaryClip: number;
  entities: boolean;
  preferences: boolean;
}

// Measured on LoCoMo dev + the Chinese set (issue 7's note): parts of at most ~200 tokens fit ten to a
// 1600-token block at full detail, and a lead summary (date line + the part's opening turns, ~60 tokens)
// makes the entries the budget cannot serve whole still carry whole turns at overview tier.
export const DEFAULT_INGEST: IngestOptions = {
  chunk: 0,
  chunkTokens: 200,
  overlap: 0,
  keepAnswers: true,
  summary: 'lead',
  leadTokens: 60,
  summaryRate: 0,
  summaryClip: 220,
  entities: true,
  preferences: true,
};

/** The dataset's LLM-written annotations, only read by the flagged `gold` variant. */
export interface GoldNotes {
  sessionSummary: Map<number, string>;
  observations: Map<string, string>;
}

const tag = (t: Turn) => `[${t.diaId}]`;

/**
 * With `llm` (LLM_BASE_URL set), entity and preference memories come from the model's notes and the
 * first part of each session carries its summary; sessions the model failed on get the LLM-free ones.
 */
export function buildMemories(conv: Conversation, opts: IngestOptions, gold?: GoldNotes, llm?: LlmNotes): MemoryFile[] {
  const idf = new Idf(conv.sessions.flatMap((s) => s.turns.map((t) => t.text)));
  const files: MemoryFile[] = [];
  for (const session of conv.sessions) {
    const chunks =
      opts.chunkTokens > 0
        ? chunkByTokens(session.turns, opts.chunkTokens, opts.overlap)
        : chunkTurns(session.turns, opts.chunk, opts.overlap, opts.keepAnswers);
    const llmSummary = clip(llm?.bySession.get(session.n)?.summary ?? '', 300);
    for (const [i, turns] of chunks.entries()) {
      const name = `${session.isoDate ?? 'undated'}-s${String(session.n).padStart(2, '0')}${chunks.length > 1 ? `-p${i + 1}` : ''}`;
      files.push({
        path: `events/${name}.md`,
        content: eventMemory(conv, session, turns, opts, idf, gold, i === 0 ? llmSummary : ''),
      });
    }
  }
  // Without a model every session is derived here; with one, only the sessions it failed on.
  const plain = llm ? { ...conv, sessions: conv.sessions.filter((s) => !llm.bySession.has(s.n)) } : conv;
  const renamed = (f: MemoryFile) => (llm ? { ...f, path: f.path.replace(/\.md$/, '-plain.md') } : f);
  if (llm)
    files.push(
      ...llmMemories(conv, llm).filter((f) => (f.path.startsWith('entities/') ? opts.entities : opts.preferences)),
    );
  if (opts.entities) files.push(...entityMemories(plain).map(renamed));
  if (opts.preferences) files.push(...preferenceMemories(plain).map(renamed));
  return files;
}

function chunkTurns(turns: Turn[], size: number, overlap: number, keepAnswers: boolean): Turn[][] {
  if (size <= 0 || turns.length <= size) return [turns];
  // Even chunks: 21 turns at size 10 become 7+7+7, not 10+10+1.
  const count = Math.ceil(turns.length / size);
  const step = turns.length / count;
  const cuts = Array.from({ length: count + 1 }, (_, c) => Math.round(c * step));
  if (keepAnswers) {
    // A cut right after a question moves one turn on, so the answer stays with its question.
    for (let c = 1; c < count; c++)
      if (/[?？]\s*$/.test(turns[cuts[c] - 1].text) && cuts[c] + 1 < cuts[c + 1]) cuts[c] += 1;
  }
  return cuts.slice(0, -1).map((from, c) => turns.slice(Math.max(0, from - overlap), cuts[c + 1]));
}

/** Even parts by token count, so CJK sessions (1.5 tokens a character) get smaller chunks than English. */
function chunkByTokens(turns: Turn[], limit: number, overlap: number): Turn[][] {
  const cost = turns.map((t) => estimateTokens(turnLine(t)) + 1);
  const total = cost.reduce((a, b) => a + b, 0);
  const count = Math.max(1, Math.ceil(total / limit));
  const out: Turn[][] = [];
  let from = 0;
  let acc = 0;
  for (let i = 0; i < turns.length; i++) {
    acc += cost[i];
    if (acc >= (total * (out.length + 1)) / count - 1e-9 || i === turns.length - 1) {
      out.push(turns.slice(Math.max(0, from - overlap), i + 1));
      from = i + 1;
    }
  }
  return out;
}

function eventMemory(
  conv: Conversation,
  session: Session,
  turns: Turn[],
  opts: IngestOptions,
  idf: Idf,
  gold: GoldNotes | undefined,
  llmSummary: string,
): string {
  const who = [...new Set(turns.map((t) => t.speaker))].join(isCjk(turns[0]?.text ?? '') ? '和' : ' and ');
  const head = `${session.longDate}, session ${session.n}, ${who}.`;
  let summary = '';
  if (opts.summary === 'extractive' && opts.summaryRate > 0)
    summary = extractiveSummary(turns, opts.summaryRate, opts.summaryClip, idf);
  if (opts.summary === 'gold' && gold) {
    const notes = turns.map((t) => gold.observations.get(t.diaId)).filter((o): o is string => !!o);
    // The session summary goes with the session's first part only: identical overviews would be deduped.
    const first = turns[0] === session.turns[0] ? (gold.sessionSummary.get(session.n) ?? '') : '';
    summary = [first, ...notes].filter(Boolean).join('\n');
  }
  let log = turns;
  if (opts.summary === 'lead') {
    // The opening turns, whole, up to about leadTokens (estimated like the budget, so CJK leads are
    // shorter in characters): the overview then carries real turns instead of a date line, and nothing
    // is written twice.
    let used = 0;
    let k = 0;
    while (k < turns.length - 1) {
      const cost = estimateTokens(turnLine(turns[k]));
      if (k > 0 && used + cost > opts.leadTokens) break;
      used += cost + 1;
      k += 1;
    }
    summary = turns.slice(0, k).map(turnLine).join('\n');
    log = turns.slice(k);
  }
  if (llmSummary) summary = [llmSummary, summary].filter(Boolean).join('\n');
  const body = opts.summary === 'none' ? '' : `# Summary\n${head}\n${summary}\n`.replace(/\n+$/, '\n');
  return `${body}# ${session.isoDate ?? session.longDate} ChatLog:\n${log.map(turnLine).join('\n')}\n`;
}

/** The most informative sentences of the chunk, in conversation order, each tagged with its turn. */
function extractiveSummary(turns: Turn[], rate: number, clipAt: number, idf: Idf): string {
  const picked: { turn: Turn; order: number; sentence: string; score: number }[] = [];
  for (const [order, turn] of turns.entries()) {
    let best = { sentence: '', score: 0 };
    for (const s of sentences(turn.text)) {
      const score = informativeness(s, idf);
      if (score > best.score) best = { sentence: s, score };
    }
    if (best.score > 0) picked.push({ turn, order, ...best });
  }
  const k = Math.max(1, Math.round((turns.length * rate) / 10));
  return picked
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .sort((a, b) => a.order - b.order)
    .map((p) => `- ${tag(p.turn)} ${p.turn.speaker}: ${clip(p.sentence, clipAt)}`)
    .join('\n');
}

const MENTIONS_PER_FILE = 5;

interface Mention {
  turn: Turn;
  sentence: string;
}

/**
 * Named things with the turns that mention them, quoted whole, at most {@link MENTIONS_PER_FILE} per
 * memory (an often-named thing gets several). A capitalised word counts as a name only if it also appears
 * capitalised mid-sentence somewhere, so interjections ("Woohoo", "Bye") and sentence starts drop out.
 */
function entityMemories(conv: Conversation): MemoryFile[] {
  const speakers = conv.speakers.map((s) => s.toLowerCase());
  const isSpeaker = (name: string) =>
    speakers.some((s) => s.startsWith(name.toLowerCase()) || name.toLowerCase().split(/\s+/).includes(s));
  const all = conv.sessions.flatMap((s) =>
    s.turns.flatMap((turn) => sentences(turn.text).map((sentence) => ({ turn, sentence }))),
  );
  // A proper noun is rarely written in lower case: "here", "fri" and the like are dropped that way.
  const lower = new Map<string, number>();
  for (const { sentence } of all)
    for (const w of sentence.match(/\b[a-z][a-z'’-]+/g) ?? []) lower.set(w, (lower.get(w) ?? 0) + 1);
  const capital = new Map<string, number>();
  for (const { sentence } of all)
    for (const n of namesIn(sentence, false)) capital.set(n.toLowerCase(), (capital.get(n.toLowerCase()) ?? 0) + 1);
  const known = new Set(
    all
      .flatMap(({ sentence }) => namesIn(sentence, true))
      .filter((n) => n.includes(' ') || (lower.get(n.toLowerCase()) ?? 0) < (capital.get(n.toLowerCase()) ?? 0))
      .map((n) => slug(n)),
  );
  const mentions = new Map<string, { name: string; list: Mention[] }>();
  for (const m of all) {
    for (const name of namesIn(m.sentence, false)) {
      if (!known.has(slug(name)) || isSpeaker(name)) continue;
      const entry = mentions.get(slug(name)) ?? { name, list: [] };
      if (!entry.list.some((x) => x.turn.diaId === m.turn.diaId)) entry.list.push(m);
      mentions.set(slug(name), entry);
    }
  }
  const files: MemoryFile[] = [];
  const dateOf = new Map(conv.sessions.map((s) => [s.n, s.isoDate ?? s.longDate]));
  for (const [key, { name, list }] of mentions) {
    for (let part = 0; part * MENTIONS_PER_FILE < list.length; part++) {
      const mine = list.slice(part * MENTIONS_PER_FILE, (part + 1) * MENTIONS_PER_FILE);
      const by = [...new Set(mine.map((m) => m.turn.speaker))].join(', ');
      const dates = [...new Set(mine.map((m) => dateOf.get(m.turn.session)))].join(', ');
      const lines = mine.map(
        (m) => `- ${tag(m.turn)} ${dateOf.get(m.turn.session)} ${m.turn.speaker}: ${clip(m.turn.text, 600)}`,
      );
      files.push({
        path: `entities/${key}${part ? `-${part + 1}` : ''}.md`,
        content: `# Summary\n${name}: mentioned by ${by} on ${dates}.\n# Mentions\n${lines.join('\n')}\n`,
      });
    }
  }
  return files;
}

/** Quoted titles, and capitalised runs (with `strict`, only those not opening the sentence). */
function namesIn(sentence: string, strict: boolean): string[] {
  const out = new Set<string>();
  for (const m of sentence.matchAll(/[《“"]([^》”"]{2,40})[》”"]/g)) out.add(m[1].trim());
  for (const m of sentence.matchAll(/叫([\p{Script=Han}]{2,4}?)(?=[，。！？、\s]|$)/gu)) out.add(m[1]);
  const re = /\b([A-Z][\p{L}'’-]+(?:\s+(?:of|the|de|and)?\s*[A-Z][\p{L}'’-]+)*)/gu;
  for (const m of sentence.matchAll(re)) {
    const words = m[1].replace(/['’]s$/, '').split(/\s+/);
    while (words.length && NOT_NAMES.has(words[0].replace(/['’]/g, ''))) words.shift();
    const phrase = words.join(' ');
    if (phrase.length < 3 || (strict && m.index === 0 && phrase === m[1].replace(/['’]s$/, ''))) continue;
    out.add(phrase);
  }
  return [...out];
}

const LIKES_EN =
  /\b(?:I|I'm|I am|I've|I have)\s+(?:really\s+|totally\s+|always\s+|also\s+|just\s+)?(?:like|love|enjoy|prefer|adore|hate|dislike|can't stand|am into|'m into|been into|am passionate about|'m passionate about|am a (?:big\s+)?fan of|'m a (?:big\s+)?fan of)\b|\bmy (?:favou?rite|fave|passion|hobby|hobbies)\b|\bfavou?rite\b/i;
const LIKES_ZH = /我(?:很|特别|最|真的|非常|也|一直)?(?:喜欢|爱|热爱|讨厌|不喜欢|偏爱|最爱)|最喜欢|爱好/;

/** First-person likes, dislikes and favourites (not questions), one small memory each: the turn, quoted. */
function preferenceMemories(conv: Conversation): MemoryFile[] {
  const files: MemoryFile[] = [];
  const dateOf = new Map(conv.sessions.map((s) => [s.n, s.isoDate ?? s.longDate]));
  for (const session of conv.sessions) {
    for (const turn of session.turns) {
      const hits = sentences(turn.text).filter(
        (s) => !/[?？]$/.test(s) && (isCjk(s) ? LIKES_ZH : LIKES_EN).test(s) && contentWords(s).length >= 2,
      );
      if (!hits.length) continue;
      // The whole turn, not only the liking sentence: its context ("…since my kids were born") is part of it.
      const text = clip(turn.text, 600);
      files.push({
        path: `preferences/${slug(turn.speaker)}-${slug(turn.diaId)}.md`,
        content: `${tag(turn)} ${dateOf.get(turn.session)} ${turn.speaker}: ${text}\n`,
      });
    }
  }
  return files;
}

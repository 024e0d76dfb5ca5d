/**
 * LoCoMo loader for bench/locomo-bench.ts (evaluation only: the data is CC BY-NC 4.0 and is read from
 * outside the repository, never copied into it). Tolerates the dataset's known defects and reports them:
 * category-5 items without `answer`, evidence ids matching no turn (or malformed: "D8:6; D9:17",
 * "D:11:26", "D"), session dates without a session, and questions left with no usable evidence.
 */
import { readFileSync } from 'node:fs';

export interface Turn {
  diaId: string;
  speaker: string;
  text: string;
  /** Image caption (`blip_caption`) when the turn shared a photo: what an agent would have seen. */
  caption: string | null;
  session: number;
}

export interface MemoryFile {
  /** Path under `viking://user/{u}/memories/`, e.g. `events/2023-05-08-s01.md`. */
  path: string;
  content: string;
}

/**
 * A turn as a memory's ChatLog line (docs/contract.md#tiers-and-sidecars) and as a model sees it: `[D1:3] Speaker: text
 * [shares a photo: …]`.
 */
export function turnLine(t: Turn): string {
  return `[${t.diaId}] ${t.speaker}: ${t.text}${t.caption ? ` [shares a photo: ${t.caption}]` : ''}`;
}

export interface Session {
  n: number;
  /** As written in the data, e.g. "1:56 pm on 8 May, 2023"; "" when missing. */
  rawDate: string;
  /** YYYY-MM-DD, or null when the date does not parse. */
  isoDate: string | null;
  /** "Monday 8 May 2023, 1:56 pm" (or the raw text). */
  longDate: string;
  turns: Turn[];
}

export interface Question {
  id: string;
  question: string;
  category: number;
  /** Evidence dia_ids that name a turn of this conversation (after splitting and repair). */
  evidence: string[];
  /** Gold answer as text (null for adversarial items without one); read by scoring only. */
  answer: string | null;
}

export interface Conversation {
  id: string;
  speakers: string[];
  sessions: Session[];
  questions: Question[];
}

export interface LoadReport {
  conversations: number;
  sessions: number;
  turns: number;
  questions: number;
  questionsByCategory: Record<string, number>;
  withoutAnswer: number;
  evidenceIds: number;
  /** Ids rewritten to a matching turn, e.g. "D:11:26" → "D11:26" or one entry holding two ids. */
  repairedEvidence: { conversation: string; question: string; raw: string; used: string[] }[];
  /** Ids naming no turn: dropped from the question's evidence (they cannot be served). */
  unmatchedEvidence: { conversation: string; question: string; id: string }[];
  /** Questions whose evidence is empty after dropping unmatched ids: kept out of recall averages. */
  questionsWithoutEvidence: { conversation: string; question: string }[];
  datesWithoutSession: { conversation: string; key: string }[];
  sessionsWithoutDate: { conversation: string; session: number }[];
}

interface RawTurn {
  speaker?: unknown;
  dia_id?: unknown;
  text?: unknown;
  blip_caption?: unknown;
}
interface RawQa {
  question?: unknown;
  answer?: unknown;
  evidence?: unknown;
  category?: unknown;
}
interface RawSample {
  sample_id?: unknown;
  conversation?: Record<string, unknown>;
  qa?: RawQa[];
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "1:56 pm on 8 May, 2023" (or "2024年3月5日 下午2:30") → ISO date and a long form with the weekday. */
export function parseSessionDate(raw: string): { iso: string | null; long: string } {
  const zh = /(\d{4})年(\d{1,2})月(\d{1,2})日/.exec(raw);
  if (zh) {
    const d = new Date(Date.UTC(Number(zh[1]), Number(zh[2]) - 1, Number(zh[3])));
    return {
      iso: d.toISOString().slice(0, 10),
      long: `${raw.trim()}（${'日一二三四五六'.split('').map((c) => `星期${c}`)[d.getUTCDay()]}）`,
    };
  }
  const m = /(\d{1,2}:\d{2}\s*[ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(raw);
  const month = m ? MONTHS.indexOf(m[3].toLowerCase()) : -1;
  if (!m || month < 0) return { iso: null, long: raw.trim() };
  const d = new Date(Date.UTC(Number(m[4]), month, Number(m[2])));
  const iso = d.toISOString().slice(0, 10);
  const monthName = MONTHS[month][0].toUpperCase() + MONTHS[month].slice(1);
  return { iso, long: `${WEEKDAYS[d.getUTCDay()]} ${Number(m[2])} ${monthName} ${m[4]}, ${m[1].toLowerCase()}` };
}

/** Splits an evidence entry into ids and repairs the one malformed shape seen ("D:11:26"). */
function evidenceIds(raw: unknown): { ids: string[]; repaired: boolean } {
  const parts = String(raw ?? '')
    .split(/[;,\s]+/)
    .filter(Boolean);
  let repaired = parts.length > 1;
  const ids = parts.map((p) => {
    const m = /^D:(\d+):(\d+)$/.exec(p);
    if (!m) return p;
    repaired = true;
    return `D${m[1]}:${m[2]}`;
  });
  return { ids, repaired };
}

/** Loads a LoCoMo-shaped file (also the Chinese check set, which uses the same shape). */
export function loadLocomo(path: string, limit = Infinity): { conversations: Conversation[]; report: LoadReport } {
  const data = JSON.parse(readFileSync(path, 'utf8')) as RawSample[];
  if (!Array.isArray(data)) throw new Error(`${path}: expected a JSON array of conversations`);
  const report: LoadReport = {
    conversations: 0,
    sessions: 0,
    turns: 0,
    questions: 0,
    questionsByCategory: {},
    withoutAnswer: 0,
    evidenceIds: 0,
    repairedEvidence: [],
    unmatchedEvidence: [],
    questionsWithoutEvidence: [],
    datesWithoutSession: [],
    sessionsWithoutDate: [],
  };
  const conversations: Conversation[] = [];
  for (const [i, sample] of data.slice(0, limit).entries()) {
    const id = String(sample.sample_id ?? `conv-${i}`);
    const conv = sample.conversation ?? {};
    const speakers = [conv['speaker_a'], conv['speaker_b']].filter((s): s is string => typeof s === 'string');
    const sessions: Session[] = [];
    for (const key of Object.keys(conv)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m || !Array.isArray(conv[key])) continue;
      const n = Number(m[1]);
      const rawDate = typeof conv[`${key}_date_time`] === 'string' ? (conv[`${key}_date_time`] as string) : '';
      if (!rawDate) report.sessionsWithoutDate.push({ conversation: id, session: n });
      const date = parseSessionDate(rawDate);
      const turns = (conv[key] as RawTurn[])
        .filter((t) => typeof t?.dia_id === 'string' && typeof t.text === 'string')
        .map((t) => ({
          diaId: t.dia_id as string,
          speaker: String(t.speaker ?? '?'),
          text: (t.text as string).trim(),
          caption: typeof t.blip_caption === 'string' && t.blip_caption.trim() ? t.blip_caption.trim() : null,
          session: n,
        }));
      if (turns.length) sessions.push({ n, rawDate, isoDate: date.iso, longDate: date.long, turns });
    }
    for (const key of Object.keys(conv)) {
      const m = /^(session_\d+)_date_time$/.exec(key);
      if (m && !Array.isArray(conv[m[1]])) report.datesWithoutSession.push({ conversation: id, key });
    }
    sessions.sort((a, b) => a.n - b.n);
    const known = new Set(sessions.flatMap((s) => s.turns.map((t) => t.diaId)));
    const questions: Question[] = [];
    for (const [j, qa] of (sample.qa ?? []).entries()) {
      const question = String(qa.question ?? '').trim();
      const category = Number(qa.category);
      if (!question || !Number.isFinite(category)) continue;
      if (qa.answer === undefined) report.withoutAnswer += 1;
      const evidence: string[] = [];
      for (const raw of Array.isArray(qa.evidence) ? qa.evidence : []) {
        report.evidenceIds += 1;
        const { ids, repaired } = evidenceIds(raw);
        const used = ids.filter((e) => known.has(e));
        if (repaired && used.length)
          report.repairedEvidence.push({ conversation: id, question, raw: String(raw), used });
        for (const e of ids) if (!known.has(e)) report.unmatchedEvidence.push({ conversation: id, question, id: e });
        for (const e of used) if (!evidence.includes(e)) evidence.push(e);
      }
      if (!evidence.length) report.questionsWithoutEvidence.push({ conversation: id, question });
      report.questionsByCategory[category] = (report.questionsByCategory[category] ?? 0) + 1;
      questions.push({
        id: `${id}#${j}`,
        question,
        category,
        evidence,
        answer: qa.answer === undefined || qa.answer === null ? null : String(qa.answer),
      });
    }
    report.conversations += 1;
    report.sessions += sessions.length;
    report.turns += known.size;
    report.questions += questions.length;
    conversations.push({ id, speakers, sessions, questions });
  }
  return { conversations, report };
}

/**
 * The dataset's LLM-written annotations (`session_summary`, `observation`), per conversation. Read only
 * by the flagged `--summary gold` variant: they are gold-ish, so that variant bounds what an LLM memory
 * extractor could add, and is never the headline number.
 */
export function loadGoldNotes(
  path: string,
): Map<string, { sessionSummary: Map<number, string>; observations: Map<string, string> }> {
  const data = JSON.parse(readFileSync(path, 'utf8')) as (RawSample & {
    session_summary?: Record<string, unknown>;
    observation?: Record<string, unknown>;
  })[];
  const out = new Map<string, { sessionSummary: Map<number, string>; observations: Map<string, string> }>();
  for (const [i, sample] of data.entries()) {
    const sessionSummary = new Map<number, string>();
    for (const [key, value] of Object.entries(sample.session_summary ?? {})) {
      const m = /^session_(\d+)_summary$/.exec(key);
      if (m && typeof value === 'string') sessionSummary.set(Number(m[1]), value.trim());
    }
    const observations = new Map<string, string>();
    for (const perSession of Object.values(sample.observation ?? {})) {
      for (const facts of Object.values((perSession ?? {}) as Record<string, unknown>)) {
        for (const fact of Array.isArray(facts) ? facts : []) {
          if (!Array.isArray(fact) || typeof fact[0] !== 'string') continue;
          for (const id of evidenceIds(fact[1]).ids) {
            const prev = observations.get(id);
            observations.set(id, `${prev ? `${prev}\n` : ''}- [${id}] ${fact[0]}`);
          }
        }
      }
    }
    out.set(String(sample.sample_id ?? `conv-${i}`), { sessionSummary, observations });
  }
  return out;
}

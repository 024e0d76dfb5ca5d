import { estimateTokens } from '../budget/token-estimate';
import { clip, eventDate, sentences, sessionFileKey, slug } from './extract-text';
import {
  DEFAULT_OFFLINE_EXTRACTOR,
  Extraction,
  ExtractionInput,
  extractionName,
  OfflineExtractorOptions,
  ProposedMemory,
} from './extraction-types';
import { MemoryRouter, MemoryTarget, SELF_ONLY } from './memory-routing';
import { Turn, turnLine, turnsOf } from './turns';
import { workingMemory } from './working-memory';

const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

/** The word without leading and trailing non-letters (a loop: a regex anchored at `$` is quadratic here). */
function trimNonLetters(w: string): string {
  let a = 0;
  let b = w.length;
  while (a < b && !isLetter(w[a])) a++;
  while (b > a && !isLetter(w[b - 1])) b--;
  return w.slice(a, b);
}

/**
 * The extractor used when no model is configured, or when the model fails: no LLM, deterministic
 * (the same archive always gives the same files, so a replayed job changes nothing).
 * - events: the conversation in parts of about `partTokens`, each with a date line and a lead summary
 *   (its opening turns) under `# Summary`, the rest as the ChatLog;
 * - entities: named things (capitalised mid-sentence, not a speaker) with the turns that mention them;
 * - preferences: first-person likes and dislikes from user turns, quoted.
 * Each memory goes to the space of the turns it is made of (docs/sessions.md "Peer memories").
 * See docs/sessions.md "Offline extractor".
 */
export function extractOffline(
  input: ExtractionInput,
  opts: OfflineExtractorOptions = DEFAULT_OFFLINE_EXTRACTOR,
): Extraction {
  const steps = extractOfflineInSteps(input, opts);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Characters of turn text read between two pauses of {@link extractOfflineInSteps} (~25 ms of work, bench:extract). */
export const OFFLINE_STEP_CHARS = 500_000;

/**
 * {@link extractOffline} in steps: the generator pauses (yields) after about every
 * {@link OFFLINE_STEP_CHARS} characters read, so a caller with an event loop can let other work run
 * between steps. A commit at the session limits (1.8M tokens) is otherwise one block of CPU
 * (docs/sessions.md "Offline extractor"). Same output as {@link extractOffline}.
 */
export function* extractOfflineInSteps(
  input: ExtractionInput,
  opts: OfflineExtractorOptions = DEFAULT_OFFLINE_EXTRACTOR,
): Generator<void, Extraction, void> {
  const turns = turnsOf(input.messages);
  const router = new MemoryRouter(input.routing ?? SELF_ONLY, input.messages);
  const pace = new Pace(OFFLINE_STEP_CHARS);
  const events = eventMemories(input, turns, opts, router);
  yield;
  const entities = yield* entityMemories(turns, opts, router, pace);
  const preferences = yield* preferenceMemories(input.userId, turns, opts, router, pace);
  yield;
  return { memories: [...events, ...entities, ...preferences], ...workingMemory(input, turns) };
}

/** Counts characters read and says when a step's worth has gone by. */
class Pace {
  private read = 0;
  constructor(private readonly step: number) {}

  due(chars: number): boolean {
    this.read += chars;
    if (this.read < this.step) return false;
    this.read = 0;
    return true;
  }
}

/**
 * Even parts of at most about `limit` tokens: the conversation's cost split into ceil(total / limit)
 * near-equal parts (21 turns at a 10-turn limit become 7+7+7, not 10+10+1), as bench:locomo measured.
 */
export function partsByTokens(turns: Turn[], limit: number): Turn[][] {
  const cost = turns.map((t) => estimateTokens(turnLine(t)) + 1);
  const total = cost.reduce((a, b) => a + b, 0);
  const count = Math.max(1, Math.ceil(total / Math.max(1, limit)));
  const parts: Turn[][] = [];
  let from = 0;
  let acc = 0;
  for (let i = 0; i < turns.length; i++) {
    acc += cost[i];
    if (acc >= (total * (parts.length + 1)) / count - 1e-9 || i === turns.length - 1) {
      parts.push(turns.slice(from, i + 1));
      from = i + 1;
    }
  }
  return parts;
}

/** The memory in a target's space (self keeps no `peerId`). */
const at = (m: ProposedMemory, target: MemoryTarget): ProposedMemory => (target ? { ...m, peerId: target } : m);
/** Map key of a (target, name) pair. */
const keyAt = (target: MemoryTarget, key: string) => `${target ?? ''}/${key}`;

function eventMemories(
  input: ExtractionInput,
  turns: Turn[],
  opts: OfflineExtractorOptions,
  router: MemoryRouter,
): ProposedMemory[] {
  const parts = partsByTokens(turns, opts.partTokens);
  // One name per session: two sessions' events never share a file (docs/sessions.md "Event file names").
  const sid = sessionFileKey(input.sessionId, input.sessionDigest);
  return parts.flatMap((part, i) => {
    const date = eventDate(part[0].createdAt, input.nowIso);
    const who = [...new Set(part.map((t) => t.speaker))].join(' and ');
    // The opening turns, whole, up to about leadTokens: the overview tier then carries real turns.
    let k = 0;
    let used = 0;
    while (k < part.length - 1) {
      const cost = estimateTokens(turnLine(part[k]));
      if (k > 0 && used + cost > opts.leadTokens) break;
      used += cost + 1;
      k += 1;
    }
    const lead = part.slice(0, k).map(turnLine);
    const log = part.slice(k).map(turnLine);
    const name = `${sid}_${extractionName(input)}_p${i + 1}`;
    const head = `${date.long}, ${who}.`;
    const fields = {
      event_name: name,
      summary: clip([head, ...lead].join(' '), 300),
      ranges: `${part[0].id}..${part[part.length - 1].id}`,
      source_extraction_id: `${sid}/${extractionName(input)}`,
      version: 1,
      memory_type: 'events',
    };
    const body = `# Summary\n${head}\n${lead.join('\n')}\n# ${date.iso} (${date.weekday}) ChatLog:\n${log.join('\n')}\n`;
    const memory: ProposedMemory = {
      path: `events/${date.ymd.join('/')}/${name}.md`,
      memoryType: 'events' as const,
      content: `${body}\n<!-- MEMORY_FIELDS\n${JSON.stringify(fields, null, 2)}\n-->\n`,
      mode: 'replace' as const,
      tags: input.eventTags,
    };
    return router.targetsOf(part).map((target) => at(memory, target));
  });
}

/**
 * Capitalised words that are not names even mid-sentence (interjections, pronouns, days and months;
 * the list bench:locomo's harness measured). The harness reads this one list too.
 */
export const NOT_NAMES: ReadonlySet<string> = new Set(
  (
    'I Im Ive Ill Id The A An My Your Our Their His Her Its This That These Those It Oh Hey Hi Wow Thanks Thank Yes Yeah No Ok Okay ' +
    'So And But Or Well Sure Great Awesome Cool Glad Congrats Congratulations Haha Lol Omg Aww Sounds Good Nice Love Lots Also Just ' +
    'What When Where Why How Who Which Did Do Does Have Has Had Was Were Is Are Will Would Can Could Should Let Mr Mrs Ms Dr ' +
    'Bye Woohoo Whoa Hooray Yay Ugh Hmm Dear Happy Take Talk See Catch Anyway Btw By Gotta Gonna ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October November December'
  ).split(' '),
);

/**
 * A word of {@link NOT_NAMES}, or a weekday in the plural ("Lessons are on Thursdays."). Only weekdays: other
 * plurals of the list are names often enough ("Mays Landing").
 */
function notAName(word: string): boolean {
  return NOT_NAMES.has(word) || (word.endsWith('days') && NOT_NAMES.has(word.slice(0, -1)));
}

/**
 * Names in a sentence: runs of capitalised words not at the sentence start — or also there when the
 * name is `known` (seen mid-sentence elsewhere in the archive, so "Marguerite called." counts too).
 */
export function namesIn(sentence: string, known?: ReadonlySet<string>): string[] {
  const words = sentence.split(/\s+/);
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length) out.push(run.join(' '));
    run = [];
  };
  const opening = trimNonLetters(words[0] ?? '');
  const startsKnown = !!known && known.has(slug(opening)) && !notAName(opening);
  for (let i = 0; i < words.length; i++) {
    const w = trimNonLetters(words[i]);
    const capital = (i > 0 || startsKnown) && /^[A-Z][a-z]{2,}$/.test(w) && !notAName(w);
    if (capital) run.push(w);
    else flush();
    if (/[,;:]/.test(words[i].slice(-1))) flush();
  }
  flush();
  return out;
}

/**
 * A quote line: the whole turn (up to 600 characters), not only the sentence that matched — its
 * context ("…since my kids were born") belongs to it, as bench:locomo's harness quotes. Date and
 * speaker, no message id: the id (`msg_` + 32 hex, ~10 tokens) told the reader nothing and cost every
 * served quote line its tokens (docs/sessions.md, "Offline extractor").
 */
const quote = (t: Turn, date: string) => `- ${date} [${t.speaker}]: ${clip(t.text, 600)}`;

/**
 * The turn's quote line, built at most once: `clip` reads the whole turn, so building it for every
 * sentence that names something made a turn cost sentences × length — a 90,000-character turn took
 * ~1 s, and a commit of 80 such turns held the event loop for minutes (docs/sessions.md "Offline extractor").
 */
function quoteOnce(t: Turn, date: string): () => string {
  let line: string | undefined;
  return () => (line ??= quote(t, date));
}

function* entityMemories(
  turns: Turn[],
  opts: OfflineExtractorOptions,
  router: MemoryRouter,
  pace: Pace,
): Generator<void, ProposedMemory[], void> {
  const speakers = new Set(turns.map((t) => t.speaker.toLowerCase()));
  const byName = new Map<string, { name: string; key: string; target: MemoryTarget; lines: string[] }>();
  // A proper noun is rarely written in lower case: words the archive writes lower-case more often than
  // capitalised ("here", "fri") are not names.
  const lower = new Map<string, number>();
  const capital = new Map<string, number>();
  for (const t of turns) {
    for (const w of t.text.match(/\b[a-z][a-z'’-]+/g) ?? []) lower.set(w, (lower.get(w) ?? 0) + 1);
    for (const s of sentences(t.text))
      for (const n of namesIn(s)) capital.set(n.toLowerCase(), (capital.get(n.toLowerCase()) ?? 0) + 1);
    if (pace.due(t.text.length)) yield;
  }
  const properNoun = (n: string) =>
    n.includes(' ') || (lower.get(n.toLowerCase()) ?? 0) < (capital.get(n.toLowerCase()) ?? 0);
  const known = new Set([...capital.keys()].filter(properNoun).map((n) => slug(n)));
  for (const t of turns) {
    const line = quoteOnce(t, eventDate(t.createdAt, '1970-01-01T00:00:00Z').iso);
    for (const s of sentences(t.text)) {
      for (const name of namesIn(s, known)) {
        const key = slug(name);
        if (!key || !known.has(key) || speakers.has(name.toLowerCase())) continue;
        for (const target of router.targetsOf([t])) {
          const e = byName.get(keyAt(target, key)) ?? { name, key, target, lines: [] };
          if (e.lines.length < opts.quotesPerFile && !e.lines.includes(line())) e.lines.push(line());
          byName.set(keyAt(target, key), e);
        }
      }
    }
    if (pace.due(t.text.length)) yield;
  }
  return [...byName.values()].slice(0, opts.maxFiles).map((e) =>
    at(
      {
        path: `entities/mentioned/${e.key}.md`,
        memoryType: 'entities' as const,
        title: `# ${e.name}`,
        content: e.lines.join('\n'),
        mode: 'merge' as const,
      },
      e.target,
    ),
  );
}

const PREFERENCE =
  /\b(?:i|we)\s+(?:really\s+|do\s+|also\s+)?(love|like|enjoy|prefer|hate|dislike|adore)\s+([^.!?,;]{2,120})/i;
const FAVOURITE = /\bmy\s+(?:favou?rite)\s+([a-z]+)/i;
const FILLER = new Set([
  'to',
  'the',
  'a',
  'an',
  'my',
  'it',
  'that',
  'this',
  'when',
  'being',
  'doing',
  'going',
  'using',
  'your',
  'our',
]);

function* preferenceMemories(
  userId: string,
  turns: Turn[],
  opts: OfflineExtractorOptions,
  router: MemoryRouter,
  pace: Pace,
): Generator<void, ProposedMemory[], void> {
  const byTopic = new Map<string, { topic: string; target: MemoryTarget; lines: string[] }>();
  for (const t of turns.filter((x) => x.role === 'user')) {
    const line = quoteOnce(t, eventDate(t.createdAt, '1970-01-01T00:00:00Z').iso);
    for (const s of sentences(t.text)) {
      const topics: string[] = [];
      const p = PREFERENCE.exec(s);
      if (p) topics.push((p[2].toLowerCase().match(/[a-z0-9]+/g) ?? []).find((w) => !FILLER.has(w)) ?? '');
      const f = FAVOURITE.exec(s);
      if (f) topics.push(f[1].toLowerCase());
      for (const topic of topics.filter(Boolean)) {
        for (const target of router.targetsOf([t])) {
          const p = byTopic.get(keyAt(target, topic)) ?? { topic, target, lines: [] };
          if (p.lines.length < opts.quotesPerFile && !p.lines.includes(line())) p.lines.push(line());
          byTopic.set(keyAt(target, topic), p);
        }
      }
    }
    if (pace.due(t.text.length)) yield;
  }
  // The contract's `preferences/{user}/…`: whose preference it is — the user's id, or the peer's in a peer space.
  const owner = (target: MemoryTarget) => slug(target ?? userId, 60) || 'user';
  return [...byTopic.values()].slice(0, opts.maxFiles).map(({ topic, target, lines }) =>
    at(
      {
        path: `preferences/${owner(target)}/${slug(topic)}.md`,
        memoryType: 'preferences' as const,
        title: `# Preference: ${topic}`,
        content: lines.join('\n'),
        mode: 'merge' as const,
      },
      target,
    ),
  );
}

/**
 * Merges quote lines into a file's content: each line once (matched by its whole text: date, speaker and
 * words), new lines appended, the heading written when the file is new. Replaying the same archive changes nothing.
 */
export function mergeQuotes(existing: string | null, title: string, lines: string): string {
  // trimEnd, not /\s+$/: that regex rescans every blank run not at the end (a 20,000-space run: 153 ms).
  const base = existing && existing.trim() ? existing.trimEnd() : title;
  const have = new Set(base.split('\n'));
  const add = lines.split('\n').filter((l) => l.trim() && !have.has(l));
  return `${[base, ...add].join('\n')}\n`;
}

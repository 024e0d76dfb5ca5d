/**
 * LLM-written memories for bench:locomo, used when LLM_BASE_URL is set: per session, one chat completion
 * (OpenAI-compatible, through libs/llm) returns a short summary, entity facts and preferences, each
 * citing the turn it comes from. Citations are checked against the session's dia_ids: an item citing
 * nothing real is dropped, and a session whose answer cannot be used falls back to the LLM-free notes.
 * The model sees only the conversation, never a question, answer or evidence list.
 */
import { LlmClient, LlmError } from '@app/llm';
import { Conversation, MemoryFile, Session, Turn, turnLine } from './locomo-data';
import { slug } from './locomo-text';

export interface LlmFact {
  text: string;
  source: Turn;
}

/** What the model wrote about one session, with every citation resolved to a turn of that session. */
export interface SessionNotes {
  summary: string;
  entities: Map<string, LlmFact[]>;
  preferences: LlmFact[];
}

export interface LlmNotes {
  bySession: Map<number, SessionNotes>;
  /** Sessions whose answer was unusable (error, timeout, no JSON): they get the LLM-free memories. */
  failed: { session: number; reason: string }[];
  promptTokens: number;
  completionTokens: number;
}

const SYSTEM = [
  'You write long-term memory notes about a conversation for an assistant.',
  'Answer with one JSON object and nothing else:',
  '{"summary": "<at most two sentences: what happened in this session>",',
  ' "entities": [{"name": "<person, pet, place, work, organisation or thing named>", "facts": [{"text": "<one fact>", "source": "<dia_id>"}]}],',
  ' "preferences": [{"speaker": "<who>", "text": "<a like, dislike, habit or goal>", "source": "<dia_id>"}]}',
  'Every fact and preference cites the dia_id of the line it comes from. Write in the language of the conversation.',
].join('\n');

/** Asks the model about every session, `concurrency` at a time. */
export async function extractWithLlm(
  client: LlmClient,
  conv: Conversation,
  opts: { timeoutMs: number; concurrency: number },
): Promise<LlmNotes> {
  const notes: LlmNotes = { bySession: new Map(), failed: [], promptTokens: 0, completionTokens: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, opts.concurrency) }, async () => {
      while (next < conv.sessions.length) {
        const session = conv.sessions[next++];
        try {
          const done = await client.complete(
            [
              { role: 'system', content: SYSTEM },
              { role: 'user', content: sessionPrompt(session) },
            ],
            { timeoutMs: opts.timeoutMs },
          );
          notes.promptTokens += done.usage?.prompt_tokens ?? 0;
          notes.completionTokens += done.usage?.completion_tokens ?? 0;
          notes.bySession.set(session.n, parseNotes(done.text, session));
        } catch (err) {
          const reason =
            err instanceof LlmError ? `${err.kind}: ${err.message}` : err instanceof Error ? err.message : String(err);
          notes.failed.push({ session: session.n, reason });
        }
      }
    }),
  );
  notes.failed.sort((a, b) => a.session - b.session);
  return notes;
}

function sessionPrompt(session: Session): string {
  return `Session ${session.n}, ${session.longDate}.\n${session.turns.map(turnLine).join('\n')}`;
}

/** The model's JSON (bare, fenced or inside prose) → notes whose every citation is a turn of `session`. */
export function parseNotes(text: string, session: Session): SessionNotes {
  const raw = firstJsonObject(text);
  if (!raw || typeof raw !== 'object') throw new Error(`no JSON object in the answer: ${text.slice(0, 120)}`);
  const o = raw as Record<string, unknown>;
  const turns = new Map(session.turns.map((t) => [t.diaId, t]));
  const fact = (item: unknown): LlmFact | null => {
    if (!item || typeof item !== 'object') return null;
    const { text: t, source } = item as Record<string, unknown>;
    const turn = typeof source === 'string' ? turns.get(source.replace(/^\[|\]$/g, '').trim()) : undefined;
    return typeof t === 'string' && t.trim() && turn ? { text: t.trim(), source: turn } : null;
  };
  const entities = new Map<string, LlmFact[]>();
  for (const e of Array.isArray(o.entities) ? o.entities : []) {
    const name = typeof (e as { name?: unknown })?.name === 'string' ? (e as { name: string }).name.trim() : '';
    const facts = (Array.isArray((e as { facts?: unknown }).facts) ? (e as { facts: unknown[] }).facts : [])
      .map(fact)
      .filter((f): f is LlmFact => f !== null);
    if (name && facts.length) entities.set(name, [...(entities.get(name) ?? []), ...facts]);
  }
  const preferences = (Array.isArray(o.preferences) ? o.preferences : [])
    .map(fact)
    .filter((f): f is LlmFact => f !== null);
  return { summary: typeof o.summary === 'string' ? o.summary.trim() : '', entities, preferences };
}

function firstJsonObject(text: string): unknown {
  const body = text.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, '');
  for (const candidate of [body, body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1)]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next form
    }
  }
  return null;
}

const PER_FILE = 5;

/**
 * Entity memories (one per named thing across the conversation, {@link PER_FILE} facts a file) and
 * preference memories (one each) from the model's notes. Each fact is followed by the turn it cites,
 * quoted whole, so the memory carries its own evidence.
 */
export function llmMemories(conv: Conversation, notes: LlmNotes): MemoryFile[] {
  const dateOf = new Map(conv.sessions.map((s) => [s.n, s.isoDate ?? s.longDate]));
  const quote = (f: LlmFact) =>
    `- [${f.source.diaId}] ${dateOf.get(f.source.session)}: ${f.text}\n  ${f.source.speaker}: "${f.source.text}"`;
  const entities = new Map<string, { name: string; facts: LlmFact[] }>();
  const preferences: LlmFact[] = [];
  for (const session of conv.sessions) {
    const n = notes.bySession.get(session.n);
    if (!n) continue;
    for (const [name, facts] of n.entities) {
      const key = slug(name);
      if (!key) continue;
      const e = entities.get(key) ?? { name, facts: [] };
      e.facts.push(...facts);
      entities.set(key, e);
    }
    preferences.push(...n.preferences);
  }
  const files: MemoryFile[] = [];
  for (const [key, { name, facts }] of entities) {
    for (let part = 0; part * PER_FILE < facts.length; part++) {
      const mine = facts.slice(part * PER_FILE, (part + 1) * PER_FILE);
      const dates = [...new Set(mine.map((f) => dateOf.get(f.source.session)))].join(', ');
      files.push({
        path: `entities/${key}${part ? `-${part + 1}` : ''}.md`,
        content: `# Summary\n${name}: ${dates}.\n# Facts\n${mine.map(quote).join('\n')}\n`,
      });
    }
  }
  preferences.forEach((f, i) => {
    files.push({
      path: `preferences/${slug(f.source.speaker)}-${slug(f.source.diaId)}-${i + 1}.md`,
      content: `${quote(f).slice(2)}\n`,
    });
  });
  return files;
}

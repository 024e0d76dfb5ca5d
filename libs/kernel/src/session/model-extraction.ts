import { clip, eventDate, sessionFileKey, slug } from './extract-text';
import { Extraction, ExtractionInput, extractionName, ProposedMemory } from './extraction-types';
import { MemoryRouter, MemoryTarget, SELF_ONLY } from './memory-routing';
import { turnLine, turnsOf } from './turns';
import { WORKING_MEMORY_SECTIONS } from './working-memory';

/** An existing memory page shown to the model so it can edit instead of duplicating. */
export interface ExistingPage {
  path: string;
  content: string;
  /** The peer whose space holds it; absent: the user's own. */
  peerId?: string;
}

const MAX_ITEMS = 50;
const MAX_CONTENT = 4000;

/**
 * The chat messages of one extraction call: what to extract (profile, preferences, entities, events
 * and a Working Memory summary), the existing pages it may edit, and the numbered conversation.
 */
export function extractionPrompt(input: ExtractionInput, existing: ExistingPage[], maxConversationChars: number) {
  const lines = turnsOf(input.messages).map((t, i) => `[${i}] ${turnLine(t)}`);
  let conversation = lines.join('\n');
  if (conversation.length > maxConversationChars) conversation = conversation.slice(0, maxConversationChars);
  const pages = existing
    .map((p) => `--- ${p.peerId ? `(peer_id ${p.peerId}) ` : ''}${p.path}\n${clip(p.content, 1500)}`)
    .join('\n');
  const peers = input.routing?.peers ?? [];
  const system = [
    'You extract long-term memories about the user from a conversation. Answer with ONE JSON object only:',
    '{"profile": string|null, "preferences": [{"topic": string, "content": string}],',
    ' "entities": [{"category": string, "name": string, "content": string}],',
    ' "events": [{"event_name": string, "summary": string, "from": int, "to": int}],',
    ' "overview": string}',
    'Rules: use only facts stated in the conversation; dates are the dates events happened; to edit an',
    'existing page, reuse its topic or name and give its whole new content; "from"/"to" are line numbers;',
    `"overview" is a markdown document "# Working Memory" with exactly these ## sections in order: ${WORKING_MEMORY_SECTIONS.join(', ')}.`,
    // Peer memories (docs/sessions.md "Peer memories"): the model names the peer; the server routes.
    peers.length
      ? `Peers: ${peers.join(', ')}. A preference or entity about one of them (not the user) has "peer_id" set to that id; "profile" may instead be a list [{"peer_id": string|null, "content": string}]. Omit "peer_id" for the user.`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
  const user = [
    `Session time: ${input.nowIso}`,
    input.previousOverview ? `Previous working memory:\n${clip(input.previousOverview, 4000)}` : '',
    pages ? `Existing pages:\n${pages}` : '',
    `Conversation:\n${conversation}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  return [
    { role: 'system' as const, content: system },
    { role: 'user' as const, content: user },
  ];
}

const text = (v: unknown, max = MAX_CONTENT): string => (typeof v === 'string' ? v.trim().slice(0, max) : '');
const list = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v)
    ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object').slice(0, MAX_ITEMS)
    : [];

/** The JSON object of a model answer (the outermost braces; code fences and prose around it ignored). */
function jsonObject(answer: string): Record<string, unknown> | null {
  const a = answer.indexOf('{');
  const b = answer.lastIndexOf('}');
  if (a < 0 || b <= a) return null;
  try {
    const v: unknown = JSON.parse(answer.slice(a, b + 1));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The memories of a model answer, or null when it is not a usable answer (the caller then falls back
 * to the offline extractor). Paths are derived here, never taken from the model. Events are numbered
 * from `firstEvent + 1` (a later window of one archive starts past the earlier windows' numbers).
 */
export function parseModelExtraction(
  answer: string,
  input: ExtractionInput,
  userSlug: string,
  firstEvent = 0,
): Extraction | null {
  const o = jsonObject(answer);
  if (!o) return null;
  const turns = turnsOf(input.messages);
  const router = new MemoryRouter(input.routing ?? SELF_ONLY, input.messages);
  const memories: ProposedMemory[] = [];
  const sessionKey = sessionFileKey(input.sessionId, input.sessionDigest);
  // Routed to the item's space (a model-named peer must be allowed; unroutable items are dropped).
  const push = (m: ProposedMemory, target: MemoryTarget | undefined) => {
    if (target !== undefined) memories.push(target ? { ...m, peerId: target } : m);
  };
  const profiles = Array.isArray(o.profile) ? list(o.profile) : [{ content: o.profile }];
  for (const p of profiles) {
    const profile = text(p.content);
    if (profile)
      push(
        { path: 'profile.md', memoryType: 'profile', content: `${profile}\n`, mode: 'replace' },
        router.itemTarget(p.peer_id),
      );
  }
  for (const p of list(o.preferences)) {
    const topic = slug(text(p.topic, 100));
    const content = text(p.content);
    const target = router.itemTarget(p.peer_id);
    if (topic && content)
      push(
        {
          path: `preferences/${target ? slug(target, 60) || userSlug : userSlug}/${topic}.md`,
          memoryType: 'preferences',
          content: `# Preference: ${topic}\n${content}\n`,
          mode: 'replace',
        },
        target,
      );
  }
  for (const e of list(o.entities)) {
    const name = slug(text(e.name, 100));
    const category = slug(text(e.category, 60)) || 'general';
    const content = text(e.content);
    if (name && content)
      push(
        {
          path: `entities/${category}/${name}.md`,
          memoryType: 'entities',
          content: `# ${text(e.name, 100)}\n${content}\n`,
          mode: 'replace',
        },
        router.itemTarget(e.peer_id),
      );
  }
  for (const [i, ev] of list(o.events).entries()) {
    const summary = text(ev.summary, 1000);
    if (!summary) continue;
    const from = Math.max(0, Math.min(turns.length - 1, Number.isInteger(ev.from) ? (ev.from as number) : 0));
    const to = Math.max(from, Math.min(turns.length - 1, Number.isInteger(ev.to) ? (ev.to as number) : from));
    const range = turns.slice(from, to + 1);
    const date = eventDate(range[0]?.createdAt, input.nowIso);
    // The model names the event; the session key keeps two sessions' events apart, after a `-` that neither
    // slug writes before it, so (event name, session) pairs never share a name (docs/sessions.md "Event file names").
    const name = `${slug(text(ev.event_name, 100)) || 'event'}-${sessionKey}_${extractionName(input)}_${firstEvent + i + 1}`;
    const fields = { event_name: name, summary, ranges: `${from}-${to}`, version: 1, memory_type: 'events' };
    const body = `# Summary\n${summary}\n# ${date.iso} (${date.weekday}) ChatLog:\n${range.map(turnLine).join('\n')}\n`;
    const event: ProposedMemory = {
      path: `events/${date.ymd.join('/')}/${name}.md`,
      memoryType: 'events',
      content: `${body}\n<!-- MEMORY_FIELDS\n${JSON.stringify(fields, null, 2)}\n-->\n`,
      mode: 'replace',
      tags: input.eventTags,
    };
    // An event goes to the spaces of the user turns in its range (each gets the file).
    for (const target of router.targetsOf(range)) push(event, target);
  }
  const overview = text(o.overview, 48_000);
  const usable =
    overview.startsWith('# Working Memory') && WORKING_MEMORY_SECTIONS.every((s) => overview.includes(`## ${s}`));
  if (!usable) return memories.length ? { memories, overview: '', abstract: '' } : null;
  const titleAt = overview.indexOf('## Session Title');
  const title =
    overview
      .slice(titleAt + 16)
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return { memories, overview: `${overview}\n`, abstract: clip(title, 200) };
}

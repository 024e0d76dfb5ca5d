import { clip, sentences } from './extract-text';
import { ExtractionInput } from './extraction-types';
import type { Turn } from './turns';

/** The seven `##` sections of a Working Memory document, in order (a contract: plugins read them). */
export const WORKING_MEMORY_SECTIONS = [
  'Session Title',
  'Current State',
  'Task & Goals',
  'Key Facts & Decisions',
  'Files & Context',
  'Errors & Corrections',
  'Open Issues',
] as const;

const bullets = (items: string[]) => (items.length ? items.map((i) => `- ${i}`).join('\n') : '- (none)');

/** A Working Memory document from its section bodies (missing sections get `- (none)`). */
export function renderWorkingMemory(
  sections: Partial<Record<(typeof WORKING_MEMORY_SECTIONS)[number], string>>,
): string {
  const parts = WORKING_MEMORY_SECTIONS.map((name) => `## ${name}\n${(sections[name] ?? '').trim() || '- (none)'}`);
  return `# Working Memory\n\n${parts.join('\n\n')}\n`;
}

/** Path-like tokens and URIs mentioned in the turns (the Files & Context section). */
function pathsIn(turns: Turn[]): string[] {
  const out = new Set<string>();
  for (const t of turns) {
    for (const w of t.text.split(/\s+/)) {
      if (w.length > 200) continue;
      if (
        w.startsWith('viking://') ||
        w.startsWith('http://') ||
        w.startsWith('https://') ||
        /^\.{0,2}\/?[\w.-]+\/[\w./-]+\.[a-z0-9]{1,6}$/i.test(w)
      )
        out.add(w);
      if (out.size >= 10) return [...out];
    }
  }
  return [...out];
}

/**
 * The archive summary without a model: a Working Memory document made of the conversation's own
 * words (title from the first user turn, goals from user questions, key facts from the turns that open
 * each exchange), and its abstract. Facts of the previous archive's document are carried forward.
 */
export function workingMemory(input: ExtractionInput, turns: Turn[]): { overview: string; abstract: string } {
  const users = turns.filter((t) => t.role === 'user');
  const title = clip(users[0]?.text ?? turns[0]?.text ?? 'Conversation', 80);
  const questions = users.flatMap((t) => sentences(t.text).filter((s) => /[?？]$/.test(s))).slice(-5);
  const facts = users.slice(-10).map((t) => `${t.speaker}: ${clip(t.text, 160)}`);
  const prevFacts = carriedFacts(input.previousOverview).filter((f) => !facts.includes(f));
  const last = turns[turns.length - 1];
  const n = users.length;
  const state = `${n} turns, ${input.messages.length} messages archived.${last ? ` Last: ${last.speaker} — ${clip(last.text, 160)}` : ''}`;
  const errors = input.messages.flatMap((m) =>
    m.parts
      .filter((p) => p.type === 'tool' && p.tool_status === 'error')
      .map((p) => `tool ${String(p.tool_name ?? '')} failed`),
  );
  const overview = renderWorkingMemory({
    'Session Title': title,
    'Current State': state,
    'Task & Goals': bullets(questions.map((q) => clip(q, 160))),
    'Key Facts & Decisions': bullets([...prevFacts.slice(-15), ...facts]),
    'Files & Context': bullets(pathsIn(turns)),
    'Errors & Corrections': bullets(errors.slice(0, 10)),
    'Open Issues': bullets(questions.length ? [clip(questions[questions.length - 1], 160)] : []),
  });
  return { overview, abstract: `${title} — ${n} turns, ${input.messages.length} messages` };
}

/** The bullets of the Key Facts section of a previous Working Memory document. */
function carriedFacts(previous: string): string[] {
  const at = previous.indexOf('## Key Facts & Decisions');
  if (at < 0) return [];
  const rest = previous.slice(at).split('\n').slice(1);
  const out: string[] = [];
  for (const line of rest) {
    if (line.startsWith('## ')) break;
    if (line.startsWith('- ') && line !== '- (none)') out.push(line.slice(2));
  }
  return out;
}

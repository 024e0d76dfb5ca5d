import { FUNCTION_WORDS } from '../overview/query-excerpt';
import { trimEndWhile } from '../text/trim';
import { ABSTRACT_LIMIT, cutAtWord, OVERVIEW_LIMIT } from './node-abstract';

/** Topic words named by a directory summary, and the fewest children that must share one. */
const TOPICS = 8;
const MIN_SHARED = 2;
// A word starts at a word boundary: inside `msg_1dbd18…` no word starts at its `d`.
const WORD = /(?<![\p{L}\p{N}_])\p{L}[\p{L}\p{N}'-]{3,}/gu;
// Identifiers (message ids, hashes, UUID parts: `dbd1832857941b88…`) are no topics; `mp3`, `python3` are.
const IDENTIFIER = /\p{N}.*\p{N}/u;
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
// A subdirectory's abstract counts its own children (`events: 1 item — …`): the count is no topic.
const ITEM_COUNT = /\b\d{1,9} items?\b/g;
// Our own memory formats' scaffolding is no topic either: speaker labels and turn tags (`[assistant]:`,
// `[D1:3]`), the chat roles (`user and assistant.`), the event part's `# Summary` and `… ChatLog:` headings,
// and the weekday and month names of its date line (the `Dates:` line states the span). Every child of a dated
// folder shares them.
const SCAFFOLDING =
  /\[[^\]\n]{1,64}\]|#[ \t]*Summary\b|\bChatLog\b|\b(?:user|assistant|system|tool)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b/giu;

export interface SidecarChild {
  uri: string;
  kind: 'file' | 'directory';
  abstract: string;
}

export interface DirectorySidecars {
  abstract: string;
  overview: string;
}

/**
 * Deterministic, extractive sidecars of a directory (docs/context.md, "Directory summaries"): the
 * overview first summarises the children — the span of the dates they carry and the words most of
 * them share (each child counted once, function words left out) — then lists each visible child with a
 * one-line abstract (children come sorted by URI), cut to fit {@link OVERVIEW_LIMIT}; the abstract
 * names the directory, its span and topics. `total` is the number of visible children when `children`
 * is only the first of them (large directories are summarised from a bounded prefix). Linear in the
 * children's names and abstracts.
 */
export function directorySidecars(dirUri: string, children: SidecarChild[], total?: number): DirectorySidecars {
  const name = dirUri.slice(dirUri.lastIndexOf('/') + 1) || dirUri;
  const visible = children.filter((c) => !c.uri.slice(c.uri.lastIndexOf('/') + 1).startsWith('.'));
  const count = Math.max(total ?? 0, visible.length);
  const { dates, topics } = summarise(visible);
  const gist = [dates ? `Dates: ${dates}.` : '', topics.length ? `Topics: ${topics.join(', ')}.` : '']
    .filter(Boolean)
    .join('\n');
  const header = `# ${name}\n\n${count} item${count === 1 ? '' : 's'} in ${dirUri}.\n${gist ? `\n${gist}\n` : ''}`;
  const lines: string[] = [];
  let used = header.length;
  for (const [i, c] of visible.entries()) {
    const base = c.uri.slice(c.uri.lastIndexOf('/') + 1) + (c.kind === 'directory' ? '/' : '');
    const gist = cutAtWord(c.abstract.replace(/\s+/g, ' ').trim(), 160);
    const line = gist ? `- ${base}: ${gist}` : `- ${base}`;
    const more = `- … and ${count - i} more`;
    if (used + line.length + 1 + more.length + 1 > OVERVIEW_LIMIT) {
      lines.push(more);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  if (lines.length === visible.length && count > visible.length) lines.push(`- … and ${count - visible.length} more`);
  const overview = `${header}\n${lines.join('\n')}`.trim();
  const firstGists = visible
    .slice(0, 3)
    .map((c) => cutAtWord(c.abstract.replace(/\s+/g, ' ').trim(), 60) || c.uri.slice(c.uri.lastIndexOf('/') + 1))
    .join('; ');
  const about = [dates, topics.length ? topics.join(', ') : ''].filter(Boolean).join('; ');
  const abstract = cutAtWord(
    `${name}: ${count} item${count === 1 ? '' : 's'}${about ? ` (${about})` : ''}${firstGists ? ` — ${firstGists}` : ''}`,
    ABSTRACT_LIMIT,
  );
  return { abstract, overview };
}

/**
 * The sidecars of a directory made with a description (`mkdir`'s): the description is its abstract, and heads
 * its overview before the generated summary and listing. Without one, `generated` as it is. The description is
 * kept with the directory, so a refresh after its children change keeps it (it was the abstract until the first
 * refresh, which the directory's own creation makes at once).
 */
export function describedSidecars(generated: DirectorySidecars, description: string | null): DirectorySidecars {
  const d = description?.trim();
  if (!d) return generated;
  return {
    abstract: cutAtWord(d.replace(/\s+/g, ' '), ABSTRACT_LIMIT),
    overview: cutAtWord(`${d}\n\n${generated.overview}`, OVERVIEW_LIMIT),
  };
}

/**
 * What the children have in common: the first and last ISO date in their names and abstracts, and the
 * words at least {@link MIN_SHARED} of them use, most shared first (ties alphabetically). Nothing for a
 * single child: its own abstract says it better.
 */
function summarise(children: SidecarChild[]): { dates: string; topics: string[] } {
  if (children.length < MIN_SHARED) return { dates: '', topics: [] };
  let first = '';
  let last = '';
  const shared = new Map<string, number>();
  for (const c of children) {
    const text = `${c.uri.slice(c.uri.lastIndexOf('/') + 1)} ${c.abstract}`;
    for (const m of text.matchAll(ISO_DATE)) {
      if (!first || m[0] < first) first = m[0];
      if (!last || m[0] > last) last = m[0];
    }
    const words = new Set<string>();
    for (const m of c.abstract.replace(ITEM_COUNT, ' ').replace(SCAFFOLDING, ' ').toLowerCase().matchAll(WORD)) {
      const w = trimEndWhile(m[0], (ch) => ch === "'" || ch === '-');
      if (w.length >= 4 && !FUNCTION_WORDS.has(w) && !/^\d/.test(w) && !IDENTIFIER.test(w)) words.add(w);
    }
    for (const w of words) shared.set(w, (shared.get(w) ?? 0) + 1);
  }
  const topics = [...shared]
    .filter(([, n]) => n >= MIN_SHARED)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOPICS)
    .map(([w]) => w);
  return { dates: first && last !== first ? `${first} to ${last}` : first, topics };
}

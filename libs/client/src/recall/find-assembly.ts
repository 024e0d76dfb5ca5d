import type { ContextEntryDto, FindHitDto } from '../generated/openapi';

// Last step of the fallback chain (docs/contract.md#fallback-chain step 4): a server with neither a context face nor
// /recall
// still has /find, so the client assembles a small block itself: local ranking boosts, dedupe, a
// chars/4 budget, and every element carries its URI so the agent can read it in full.

export interface FindAssemblyOptions {
  query: string;
  limit: number;
  tokenBudget: number;
  maxContentChars: number;
}

export interface AssembledBlock {
  entries: ContextEntryDto[];
  rendered: string;
}

type Category = ContextEntryDto['category'];
const MEMORY_CATEGORIES: readonly Category[] = ['events', 'entities', 'preferences', 'experiences'];
const SIDECAR = /\/\.(abstract|overview)\.md$/;
/** Boost for a file hit over a directory summary, and per matched query term (both small against scores in 0..1). */
const LEAF_BOOST = 0.02;
const TERM_BOOST = 0.05;

/** The `/find` request limit for the fallback: max(2·limit, 8). */
export function findFallbackLimit(recallLimit: number): number {
  return Math.max(2 * recallLimit, 8);
}

export function categoryOf(uri: string): Category {
  const m = /\/memories\/([^/]+)\//.exec(uri);
  if (m) return MEMORY_CATEGORIES.find((c) => c === m[1]) ?? 'memories';
  if (/^viking:\/\/(agent\/skills|user\/[^/]+\/skills)(\/|$)/.test(uri)) return 'skills';
  return 'resources';
}

function terms(text: string): string[] {
  return [
    ...new Set(
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((t) => t.length >= 3),
    ),
  ];
}

function localScore(hit: FindHitDto, queryTerms: string[]): number {
  const haystack = `${hit.uri} ${hit.abstract}`.toLowerCase();
  const matched = queryTerms.filter((t) => haystack.includes(t)).length;
  const overlap = queryTerms.length ? matched / queryTerms.length : 0;
  return hit.score + (hit.level === 2 ? LEAF_BOOST : 0) + TERM_BOOST * overlap;
}

const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const neutralise = (body: string) => body.replace(/<(\/?)memory(?=[\s/>])/gi, '<\\$1memory');

/** One `<memory …>` element in the server's format (docs/contract.md#rendered-block). */
export function renderElement(e: ContextEntryDto): string {
  const head = `<memory uri="${escapeAttr(e.uri)}" type="${escapeAttr(e.category)}" score="${e.score.toFixed(2)}" detail="${e.detail}"`;
  return e.text ? `${head}>\n${neutralise(e.text)}\n</memory>` : `${head} />`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** Ranks, dedupes and budgets `/find` hits into a block shaped like a context answer. */
export function assembleFromFind(hits: readonly FindHitDto[], opts: FindAssemblyOptions): AssembledBlock {
  const queryTerms = terms(opts.query);
  const ranked = hits
    .map((hit, i) => ({ hit, i, rank: localScore(hit, queryTerms) }))
    .sort((a, b) => b.rank - a.rank || a.i - b.i);
  const seenUris = new Set<string>();
  const seenTexts = new Set<string>();
  const entries: ContextEntryDto[] = [];
  let used = 0;
  for (const { hit } of ranked) {
    if (entries.length >= opts.limit) break;
    const uri = hit.uri.replace(SIDECAR, '');
    const text = cut(hit.abstract.trim(), opts.maxContentChars);
    const textKey = text.toLowerCase();
    if (seenUris.has(uri) || (text && seenTexts.has(textKey)) || uri.endsWith('/memories/profile.md')) continue;
    const entry: ContextEntryDto = {
      uri,
      category: categoryOf(uri),
      score: hit.score,
      detail: text ? 'abstract' : 'uri',
      text,
      origin: 'self',
    };
    const cost = Math.ceil(renderElement(entry).length / 4) + (entries.length ? 1 : 0);
    if (used + cost > opts.tokenBudget) continue;
    used += cost;
    seenUris.add(uri);
    if (text) seenTexts.add(textKey);
    entries.push(entry);
  }
  return { entries, rendered: entries.map(renderElement).join('\n') };
}

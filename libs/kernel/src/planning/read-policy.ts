import { pyStrip } from '../text/py-text';
import { entryTokens } from '../render/render-entry';
import { Candidate } from '../tiering/candidate';
import { DetailPins, NO_PINS, pinFor } from '../tiering/detail-pins';
import { contentUriFor } from '../tiering/tier-text';
import { PinnableTier, tierRank } from '../tiering/tier';
import { abstractSubstitute, tierWindow } from '../tiering/tier-window';
import { cutAtWord, MEMORY_ABSTRACT_LIMIT } from '../indexing/node-abstract';
import { entryFor } from './assembled-entry';

/** Whether any tier the candidate may reach needs its body (ceiling ≥ overview). */
export function needsContent(candidate: Candidate, pin: PinnableTier | null): boolean {
  return tierRank(tierWindow(candidate, pin).ceiling) >= tierRank('overview');
}

/**
 * Whether a memory candidate's abstract alone is over the cap, so it falls back to the overview
 * and its body must be read; resources and skills degrade to a bare URI instead and never qualify.
 */
export function oversizedAbstractNeedsBody(candidate: Candidate, cap: number): boolean {
  if (abstractSubstitute(candidate) !== 'overview') return false;
  const text = pyStrip(candidate.abstract);
  if (text === '') return false;
  // Every UTF-16 unit of a rendered entry costs at least a quarter token (`estimateTokens`) and the entry holds the
  // whole text, so a text of more than 4 × cap units is over the cap unrendered: the read policy of a request with
  // thousands of candidates and a small cap each (six buckets of 1,000) then renders none of their abstracts.
  if (text.length > 4 * cap) return true;
  return entryTokens(entryFor(candidate, 'abstract', text)) > cap;
}

/** Characters of a body read at least, whatever the budget: an excerpt looks for its lines in them. */
export const BODY_READ_MIN_CHARS = 65536;
/** And at most: only a `max_chars` alias over 4 M characters asks for more than 8 × 131,072 tokens. */
export const BODY_READ_MAX_CHARS = 1048576;

/**
 * How much of each body an assembly reads (docs/limits-and-security.md, "Work per byte"). Every
 * character costs at least a quarter token (`estimateTokens`), so a body cut at 8 × `maxTokens`
 * characters is still over any budget and can never be served `full` by mistake; what is cut is only
 * the text an `overview` excerpt could have picked its lines from. Twenty 9.5 MB memories made one
 * context request read, estimate and scan 190 MB (4.5 s with the event loop held). Budgets over
 * 131,072 tokens exist only through the `max_chars` alias (no upper clamp, docs/contract.md); there a
 * body over {@link BODY_READ_MAX_CHARS} is served from that prefix.
 */
export function bodyReadChars(maxTokens: number): number {
  return Math.min(BODY_READ_MAX_CHARS, Math.max(BODY_READ_MIN_CHARS, 8 * maxTokens));
}

/**
 * Characters of bodies one plan works over, all bodies together (docs/limits-and-security.md, "Work per byte"):
 * 32 times the text a 32,000-token block can hold. Each body is bounded by {@link bodyReadChars}, but a request
 * may plan 1,000 candidates or more: 300 memories of 200 KB made one context request at 32,000 tokens hold the
 * assembler's event loop 3.8 s (a `/recall` with a large `max_chars` 7.7 s), every other tenant's block waiting.
 */
export const PLAN_BODY_MAX_CHARS = 4 * 1024 * 1024;

/**
 * Characters of abstracts a context request's hits carry in all (split evenly over its find calls), best-scored
 * first: a hit carries its abstract from the retriever through Redis to the gateway and again to the assembler,
 * and a memory's abstract may be 16,000 characters. 300 of them (4.8 MB) cost a request ~390 ms of those two
 * trips; six buckets of 1,000 would carry 96 MB. Past the total, a hit's abstract is cut to
 * {@link CUT_HIT_ABSTRACT_CHARS}: the largest block holds 128,000 characters in all.
 */
export const HIT_ABSTRACT_MAX_CHARS = 4 * 1024 * 1024;
/** What a hit's abstract is cut to past {@link HIT_ABSTRACT_MAX_CHARS} (about 250 tokens, with its ellipsis). */
export const CUT_HIT_ABSTRACT_CHARS = 1000;

/** Each of `calls` find calls' share of {@link HIT_ABSTRACT_MAX_CHARS}, never under one whole memory abstract. */
export function callAbstractChars(calls: number): number {
  return Math.max(MEMORY_ABSTRACT_LIMIT, Math.ceil(HIT_ABSTRACT_MAX_CHARS / Math.max(1, calls)));
}

/**
 * Hits (any order) whose abstracts fit `maxChars` together, best-scored first, keep them; the others' abstracts
 * over twice {@link CUT_HIT_ABSTRACT_CHARS} are cut to it (`cutAtWord`: a cut ends with its ellipsis) and carry
 * no body. The hits are changed in place; returns how many were cut.
 */
export function cutHitAbstracts<H extends { score: number; abstract: string; wholeBody?: true }>(
  hits: H[],
  maxChars: number,
): number {
  let used = 0;
  let cut = 0;
  for (const hit of [...hits].sort((a, b) => b.score - a.score)) {
    if (used + hit.abstract.length <= maxChars) {
      used += hit.abstract.length;
      continue;
    }
    // An abstract under twice the cut stays whole: cutting it would save little and cost its body's read.
    if (hit.abstract.length > 2 * CUT_HIT_ABSTRACT_CHARS) {
      hit.abstract = cutAtWord(hit.abstract, CUT_HIT_ABSTRACT_CHARS);
      delete hit.wholeBody;
      cut += 1;
    }
    used += hit.abstract.length;
  }
  return cut;
}

/**
 * The items, in rank order, whose sizes fit `maxChars` together: the first always, one that does not fit is
 * skipped and a later smaller one may still fit; an item of unknown size (`undefined`) is left out. What the plan
 * works over ({@link bodiesWithinTotal}) and what the assembler reads are both chosen by it.
 */
export function withinTotal<T>(ranked: readonly T[], sizeOf: (item: T) => number | undefined, maxChars: number): T[] {
  const kept: T[] = [];
  let used = 0;
  for (const item of ranked) {
    const size = sizeOf(item);
    if (size === undefined || (used > 0 && used + size > maxChars)) continue;
    kept.push(item);
    used += size;
  }
  return kept;
}

/**
 * The bodies a plan works over: the best-ranked candidates' first, then those of entries served in earlier
 * turns, until {@link PLAN_BODY_MAX_CHARS} (the first body always). A body left out is as if unreadable: its
 * candidate is served from its abstract or as a bare URI (docs/contract.md#tier-texts).
 */
export function bodiesWithinTotal(
  ranked: readonly Candidate[],
  contents: ReadonlyMap<string, string>,
  maxChars = PLAN_BODY_MAX_CHARS,
): ReadonlyMap<string, string> {
  let total = 0;
  for (const text of contents.values()) total += text.length;
  if (total <= maxChars) return contents;
  const uris = [...new Set(ranked.map(contentUriFor))];
  const kept = withinTotal(uris, (uri) => contents.get(uri)?.length, maxChars);
  return new Map(kept.map((uri) => [uri, contents.get(uri)!]));
}

/** The read policy (docs/contract.md#tier-texts): read a body only if a body-backed tier is reachable. */
export function needsBody(candidate: Candidate, cap: number, pins: DetailPins = NO_PINS): boolean {
  return needsContent(candidate, pinFor(pins, candidate.category)) || oversizedAbstractNeedsBody(candidate, cap);
}

/** One body to fetch; `openContext` reads without the actor view (other-peer candidates). */
export interface ContentRead {
  uri: string;
  openContext: boolean;
}

/** Distinct content URIs to read for these candidates, in rank order, each read once. */
export function planContentReads(
  candidates: readonly Candidate[],
  cap: number,
  pins: DetailPins = NO_PINS,
): ContentRead[] {
  const reads: ContentRead[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (!needsBody(candidate, cap, pins)) continue;
    const uri = contentUriFor(candidate);
    if (seen.has(uri)) continue;
    seen.add(uri);
    reads.push({ uri, openContext: candidate.origin === 'other_peer' });
  }
  return reads;
}

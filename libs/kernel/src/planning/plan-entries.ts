import { perEntryCap } from '../budget/per-entry-cap';
import { estimateTokens } from '../budget/token-estimate';
import { entryTokens } from '../render/render-entry';
import { Candidate } from '../tiering/candidate';
import { DetailPins, DetailStat, detailStat, NO_PINS, pinFor } from '../tiering/detail-pins';
import { Tier, tierRank } from '../tiering/tier';
import { tiersDownFrom, tierWindow } from '../tiering/tier-window';
import { contentUriFor, tierText } from '../tiering/tier-text';
import { focusTerms, focusWeights, queryExcerpt } from '../overview/query-excerpt';
import { AssembledEntry, entryFor } from './assembled-entry';
import { explainCandidate, ExplainEntry, PlanNote } from './explain';
import { redundantEntries, RedundancyText, shingleMemo } from './redundancy';
import { SeenEntry } from './seen-entries';

const SEPARATOR_TOKENS = 1;
/**
 * A candidate whose score is under this share of the best candidate's is not served (docs/context.md,
 * "Weak candidates"): in a small tenant every node is a hit, and an unrelated listing at 5% of the best
 * score took budget the best hits needed. Measured on bench:locomo: neutral at 0.15 (every layout within
 * ±0.008), 0.3 cost the facts layout 0.027 at 3200.
 */
export const RELATIVE_FLOOR = 0.15;
/** Redundancy rounds: each frees budget that the next refills; two rounds settle in practice. */
const MAX_ROUNDS = 3;
/**
 * What the first breadth pass leaves for deepening the best-ranked entries: 30% of the budget, but at
 * least {@link DEPTH_RESERVE_MIN} tokens (about two whole ~200-token memories with their envelopes)
 * and never more than 60%. Measured on bench:locomo (docs/context.md, "Small budgets"): at 800 tokens
 * a 40% reserve could deepen one entry at most, and the tuned layout went from 0.737 to 0.791 with 60%;
 * at 1600 and 3200 a larger reserve cost breadth (session layout at 3200: 0.861 → 0.841), and 30%
 * instead of 40% (480 tokens at 1600) raised the session layout at 1600 from 0.801 to 0.816.
 */
export const DEPTH_RESERVE = 0.3;
const DEPTH_RESERVE_MIN = 480;
const DEPTH_RESERVE_MAX = 0.6;

/**
 * The candidates worth planning: those scoring at least {@link RELATIVE_FLOOR} of the best (rank order kept).
 * Raw scores: the other-peer penalty ranks (docs/contract.md#candidates-from-hits), it never filters.
 */
export function strongCandidates(candidates: readonly Candidate[]): Candidate[] {
  const best = bestScore(candidates);
  if (best <= 0) return [...candidates];
  return candidates.filter((c) => c.score >= RELATIVE_FLOOR * best);
}

const bestScore = (candidates: readonly Candidate[]) => candidates.reduce((max, c) => Math.max(max, c.score), 0);

/** Tokens the first breadth pass may use out of `maxTokens`. */
export function breadthShare(maxTokens: number): number {
  const reserve = Math.min(maxTokens * DEPTH_RESERVE_MAX, Math.max(maxTokens * DEPTH_RESERVE, DEPTH_RESERVE_MIN));
  return Math.floor(maxTokens - reserve);
}

export interface PlanInput {
  /** Candidates in rank order. */
  candidates: readonly Candidate[];
  /** Bodies by content URI (see `contentUriFor`), already normalised; missing = unreadable. */
  contents: ReadonlyMap<string, string>;
  maxTokens: number;
  pins?: DetailPins;
  /** The request's query: memory overviews become query-focused excerpts (docs/context.md, "Excerpts"). */
  query?: string;
  /**
   * Candidates beyond this many (in rank order) are a reserve: they do not shrink the per-entry cap and
   * are placed only with the budget left once the others are planned (docs/context.md, "Default
   * candidate count"). Unset: every candidate is primary.
   */
  primary?: number;
  /** Keep a note per candidate of what happened to it and why (docs/context.md, "Explain"). */
  explain?: boolean;
  /** Entries served in the session's last `dedup_turns` that this request's searches found again. */
  seen?: readonly SeenEntry[];
}

export interface FillStats {
  floorTokens: number;
  overviewUpgrades: number;
  fullUpgrades: number;
  spareUpgrades: number;
}

/** The budgeting half of `stats` (docs/contract.md#stats, max_tokens … fill). */
export interface PlanStats {
  maxTokens: number;
  usedTokens: number;
  perEntryCap: number;
  returned: number;
  dropped: number;
  deduped: number;
  /** Served-then-withdrawn entries whose text the other entries already carry (docs/context.md, "Redundancy"). */
  redundant: number;
  /** Candidates under {@link RELATIVE_FLOOR} of the best score, never planned (docs/context.md, "Weak candidates"). */
  weak: number;
  detail: DetailStat;
  tierCounts: Partial<Record<Tier, number>>;
  fill: FillStats;
}

export interface PlanOutput {
  entries: AssembledEntry[];
  stats: PlanStats;
  /** Only with `explain`. */
  explain?: ExplainEntry[];
}

interface Slot {
  candidate: Candidate;
  entry: AssembledEntry;
  ceiling: Tier;
}

function build(candidate: Candidate, tier: Tier, text: string): AssembledEntry {
  const entry = entryFor(candidate, tier, text);
  entry.tokens = entryTokens(entry);
  return entry;
}

/**
 * `build`, measured once per candidate, tier and text in a plan: every breadth pass tries the tiers of every
 * candidate not yet placed and every deepening tries the next tier of every slot, so without it one request of
 * 1,000 candidates at 32,000 tokens rendered and measured the same elements many times over (docs/context.md,
 * "Planning cost"). Each call still returns an entry of its own.
 */
function entryBuilder(): typeof build {
  const built = new Map<Candidate, Map<Tier, AssembledEntry>>();
  return (candidate, tier, text) => {
    let byTier = built.get(candidate);
    if (!byTier) built.set(candidate, (byTier = new Map()));
    let entry = byTier.get(tier);
    if (entry?.text !== text) byTier.set(tier, (entry = build(candidate, tier, text)));
    return { ...entry! };
  };
}

/**
 * Breadth-first, then depth (docs/contract.md#planning): place every candidate at its start tier (falling back down
 * the ladder, never truncating), skip duplicate texts, then spend what is left on overview, full
 * and finally cap-free full upgrades, best-ranked first. Then withdraw entries the others already
 * carry (near-duplicates, directory listings of served files) and spend what they held on the
 * candidates and upgrades that did not fit, for a few rounds.
 */
export function planEntries(request: PlanInput): PlanOutput {
  // Weak candidates take no part: they neither shrink the per-entry cap nor take budget (nor are read).
  const input: PlanInput = { ...request, candidates: strongCandidates(request.candidates) };
  const maxTokens = Math.max(1, Math.trunc(input.maxTokens));
  const pins = input.pins ?? NO_PINS;
  const primary = Math.min(input.candidates.length, input.primary ?? input.candidates.length);
  const cap = perEntryCap(maxTokens, primary);
  const reserve = new Set(input.candidates.slice(primary));
  const fitsCap = (tier: Tier, tokens: number): boolean => tier === 'uri' || tokens <= cap;
  const build = entryBuilder();
  let slots: Slot[] = [];
  // Served text → the URI that served it first (for `explain`).
  const seenTexts = new Map<string, string>();
  // Candidates not to try again: placed, deduped or withdrawn as redundant. Dropped ones are retried.
  const settled = new Set<Candidate>();
  let used = 0;

  let deduped = 0;
  let redundant = 0;
  const plain = plainTexts(input.contents);
  const textOf = focusedText(input, cap, plain);
  const notes = new Map<Candidate, PlanNote>();
  const note = (candidate: Candidate): PlanNote | null => {
    if (!input.explain) return null;
    if (!notes.has(candidate)) {
      const { start, ceiling } = tierWindow(candidate, pinFor(pins, candidate.category));
      notes.set(candidate, { start, ceiling, outcome: 'dropped', why: [] });
    }
    return notes.get(candidate)!;
  };
  const separators = () => Math.max(0, slots.length - 1) * SEPARATOR_TOKENS;
  const recount = () => (used = slots.reduce((sum, slot) => sum + slot.entry.tokens, 0) + separators());

  const floor = (limit: number, withReserve: boolean): void => {
    for (const candidate of input.candidates) {
      if (used >= limit) break;
      if (settled.has(candidate) || (!withReserve && reserve.has(candidate))) continue;
      const { start, ceiling } = tierWindow(candidate, pinFor(pins, candidate.category));
      // Not even its bare URI fits: no tier can, so its texts (a directory's sidecar) are not looked at
      // (docs/context.md, "Bodies the search carries"). With explain, each tier's reason is still noted.
      if (
        !input.explain &&
        used + build(candidate, 'uri', '').tokens + (slots.length ? SEPARATOR_TOKENS : 0) > maxTokens
      )
        continue;
      let placed: AssembledEntry | null = null;
      const skipped: string[] = [];
      for (const tier of tiersDownFrom(candidate, start)) {
        const text = textOf(candidate, tier);
        if (text === null) {
          skipped.push(`${tier}: no text`);
          continue;
        }
        const entry = build(candidate, tier, text);
        const cost = entry.tokens + (slots.length ? SEPARATOR_TOKENS : 0);
        if (!fitsCap(tier, entry.tokens)) {
          skipped.push(`${tier}: ${entry.tokens} tokens over the per-entry cap ${cap}`);
          continue;
        }
        if (used + cost > maxTokens) {
          skipped.push(`${tier}: ${entry.tokens} tokens over the ${maxTokens - used} left`);
          continue;
        }
        placed = entry;
        break;
      }
      const n = note(candidate);
      if (n) {
        const dropped = [...skipped, 'dropped: no tier fits the budget left'];
        n.why = placed ? skipped.map((s) => `degraded past ${s}`) : dropped;
      }
      if (!placed) continue;
      settled.add(candidate);
      // Dedupe on what is injected: two URIs sharing an unshown abstract are still two pointers.
      const key = placed.text || candidate.baseUri;
      if (seenTexts.has(key)) {
        deduped += 1;
        if (n) {
          n.outcome = 'deduped';
          n.why.push(`deduped: same text as ${seenTexts.get(key)}`);
        }
        continue;
      }
      seenTexts.set(key, candidate.baseUri);
      if (n) n.outcome = 'served';
      used += placed.tokens + (slots.length ? SEPARATOR_TOKENS : 0);
      slots.push({ candidate, entry: placed, ceiling });
    }
  };

  const upgrade = (target: Tier, respectCap: boolean): number => {
    let upgraded = 0;
    for (const slot of slots) {
      if (tierRank(slot.entry.detail) >= tierRank(target) || tierRank(target) > tierRank(slot.ceiling)) continue;
      const text = textOf(slot.candidate, target);
      if (text === null) continue;
      const entry = build(slot.candidate, target, text);
      if (respectCap && !fitsCap(target, entry.tokens)) continue;
      const delta = entry.tokens - slot.entry.tokens;
      if (used + delta > maxTokens) continue;
      slot.entry = entry;
      used += delta;
      upgraded += 1;
      note(slot.candidate)?.why.push(`deepened to ${target}${respectCap ? '' : ' (spare budget, over the cap)'}`);
    }
    return upgraded;
  };

  // Leftover budget, best-ranked first, widens excerpts that could not become full (counted as spare upgrades).
  const widen = (): number => {
    let widened = 0;
    for (const slot of slots) {
      if (slot.entry.detail !== 'overview' || !textOf.widen || used >= maxTokens) continue;
      const text = textOf.widen(slot.candidate, estimateTokens(slot.entry.text) + (maxTokens - used));
      if (text === null || text.length <= slot.entry.text.length) continue;
      const entry = build(slot.candidate, 'overview', text);
      const delta = entry.tokens - slot.entry.tokens;
      if (delta <= 0 || used + delta > maxTokens) continue;
      slot.entry = entry;
      used += delta;
      widened += 1;
      note(slot.candidate)?.why.push('excerpt widened by leftover budget');
    }
    return widened;
  };

  // Slots keep rank order: a refilled candidate goes where its rank puts it, not at the end.
  const order = new Map(input.candidates.map((c, i) => [c, i]));
  let floorTokens = 0;
  const fill: FillStats = { floorTokens: 0, overviewUpgrades: 0, fullUpgrades: 0, spareUpgrades: 0 };
  const deepen = (): void => {
    slots.sort((a, b) => order.get(a.candidate)! - order.get(b.candidate)!);
    recount();
    fill.overviewUpgrades += upgrade('overview', true);
    fill.fullUpgrades += upgrade('full', true);
    // Over the cap, best-ranked first: an entry the cap pushed down to its bare URI (an abstract of 78 tokens
    // against a cap of 60) gets its one line of text back before lower-ranked entries deepen.
    fill.spareUpgrades += upgrade('abstract', false);
    fill.spareUpgrades += upgrade('full', false);
    fill.spareUpgrades += widen();
  };
  // Withdraws the served entries the others already carry; true when any went.
  // Texts withdrawn in earlier rounds: they still cover the directory listings that name them.
  const withdrawn: RedundancyText[] = [];
  const seen = heldTexts(input);
  const carriedBy = seen.length
    ? 'the other served entries and those served in earlier turns of the session'
    : 'the other served entries';
  const shinglesOf = shingleMemo();
  const withdrawRedundant = (): boolean => {
    const texts = slots.map((slot) => ({ text: slot.entry.text, isDirectory: slot.candidate.isDirectory }));
    const gone = redundantEntries(texts, withdrawn, seen, shinglesOf);
    if (gone.size === 0) return false;
    redundant += gone.size;
    // A withdrawn file covers what a listing quotes of it, its abstract (the gist a listing is built from)
    // included: a file whose matching text the block already carries is not worth its listing line either.
    for (const i of gone) {
      const { text, isDirectory } = texts[i]!;
      withdrawn.push({ text: isDirectory ? text : `${text}\n${slots[i]!.candidate.abstract}`, isDirectory });
    }
    for (const i of gone) {
      const n = note(slots[i]!.candidate);
      if (n) {
        n.outcome = 'redundant';
        n.why.push(`redundant: at least 80% of its text is carried by ${carriedBy}`);
      }
    }
    slots = slots.filter((_, i) => !gone.has(i));
    recount();
    return true;
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (round === 0) {
      // Value per token: breadth may take only part of the budget at first, so the best-ranked entries
      // can deepen (full bodies, wider excerpts) before lower-ranked ones are placed with what is left.
      floor(breadthShare(maxTokens), false);
      floorTokens = used;
      deepen();
      floor(maxTokens, false);
      deepen();
    }
    floor(maxTokens, true);
    deepen();
    if (!withdrawRedundant()) break;
    // What the last round placed is checked too, but not refilled: its budget only deepens what stays, and
    // what a deepening turned from a bare URI into text is checked once more.
    if (round === MAX_ROUNDS - 1) {
      deepen();
      withdrawRedundant();
    }
  }
  fill.floorTokens = floorTokens;
  // Candidates for which no tier ever fitted (placed, deduped and withdrawn ones are settled).
  const dropped = input.candidates.filter((c) => !settled.has(c)).length;

  const entries = slots.map((slot) => slot.entry);
  let explain: ExplainEntry[] | undefined;
  if (input.explain) {
    const served = new Map(slots.map((slot) => [slot.candidate, slot.entry]));
    const best = bestScore(request.candidates);
    const strong = new Set(input.candidates);
    explain = request.candidates.map((candidate, i) => {
      const entry = served.get(candidate);
      const n = note(candidate)!;
      if (!strong.has(candidate)) {
        n.outcome = 'weak';
        n.why.push(
          `weak: score ${candidate.score.toFixed(3)} is under ${RELATIVE_FLOOR * 100}% of the best (${best.toFixed(3)})`,
        );
      }
      const excerpted = entry?.detail === 'overview' && textOf(candidate, 'overview') !== plain(candidate, 'overview');
      if (excerpted) {
        n.why.unshift('overview is a query-focused excerpt of the body');
      }
      n.why.unshift(entry ? `served at ${entry.detail} (rank ${i + 1})` : `not served (rank ${i + 1})`);
      return explainCandidate(candidate, i + 1, n, entry ? { detail: entry.detail, tokens: entry.tokens } : null);
    });
  }
  const tierCounts: Partial<Record<Tier, number>> = {};
  for (const entry of entries) tierCounts[entry.detail] = (tierCounts[entry.detail] ?? 0) + 1;
  return {
    entries,
    stats: {
      maxTokens,
      usedTokens: used,
      perEntryCap: cap,
      returned: entries.length,
      dropped,
      deduped,
      redundant,
      weak: request.candidates.length - input.candidates.length,
      detail: detailStat(pins),
      tierCounts,
      fill,
    },
    ...(explain ? { explain } : {}),
  };
}

/**
 * What the agent was given in earlier turns, as near as the store can say: the recorded tier's text (a memory
 * overview was a query-focused excerpt of the body then; its plain overview stands in for it).
 */
function heldTexts(input: PlanInput): RedundancyText[] {
  return (input.seen ?? []).flatMap(({ candidate, detail }) => {
    const text = tierText(candidate, detail, input.contents) ?? tierText(candidate, 'abstract', input.contents);
    return text ? [{ text, isDirectory: candidate.isDirectory }] : [];
  });
}

type PlainText = (candidate: Candidate, tier: Tier) => string | null;

/**
 * `tierText`, worked out once per candidate and tier in a plan: an overview is derived from the body (a code
 * skeleton, a memory's summary, a document's outline), and the passes ask for the same one again and again.
 */
function plainTexts(contents: ReadonlyMap<string, string>): PlainText {
  const texts = new Map<Candidate, Map<Tier, string | null>>();
  return (candidate, tier) => {
    let byTier = texts.get(candidate);
    if (!byTier) texts.set(candidate, (byTier = new Map()));
    if (!byTier.has(tier)) byTier.set(tier, tierText(candidate, tier, contents));
    return byTier.get(tier)!;
  };
}

/** Share of the per-entry cap an excerpt may take when first placed; leftover budget widens it later. */
export const EXCERPT_FLOOR_SHARE = { value: 0 };

type TextOf = ((candidate: Candidate, tier: Tier) => string | null) & {
  /** A wider excerpt (allowance in tokens of text) for an overview-tier memory file, or null. */
  widen?: (candidate: Candidate, allowance: number) => string | null;
};

/**
 * Tier texts for this plan. With a query, an unpinned memory file's overview is the excerpt of its
 * body lines matching the query (within part of the per-entry cap), when any line matches; else
 * docs/contract.md#tier-texts's text.
 */
function focusedText(input: PlanInput, cap: number, plain: PlainText): TextOf {
  const terms = input.query ? focusTerms(input.query) : [];
  if (terms.length === 0) return plain;
  const pins = input.pins ?? NO_PINS;
  const focusable = (c: Candidate) =>
    !c.isDirectory && c.baseUri.includes('/memories/') && pinFor(pins, c.category) === null;
  const bodyOf = (c: Candidate) => input.contents.get(contentUriFor(c)) ?? '';
  const bodies = input.candidates.filter(focusable).map(bodyOf).filter(Boolean);
  const weights = focusWeights(terms, bodies);
  const cache = new Map<Candidate, string | null>();
  const excerpt = (candidate: Candidate, allowance: number) => queryExcerpt(bodyOf(candidate), weights, allowance);
  const textOf: TextOf = (candidate, tier) => {
    if (tier !== 'overview' || !focusable(candidate)) return plain(candidate, tier);
    if (!cache.has(candidate)) {
      // As many tokens as the plain overview would take (never more than the cap allows): the same
      // cost, spent on the lines the query asks about; leftover budget widens it later.
      const envelope = entryTokens(entryFor(candidate, 'overview', ' '));
      const summary = plain(candidate, 'overview');
      const share = Math.floor(cap * EXCERPT_FLOOR_SHARE.value) - envelope;
      const allowance = Math.max(summary ? estimateTokens(summary) : 0, share);
      cache.set(candidate, excerpt(candidate, Math.min(cap - envelope, allowance)));
    }
    return cache.get(candidate) ?? plain(candidate, tier);
  };
  textOf.widen = (candidate, allowance) =>
    focusable(candidate) && cache.get(candidate) ? excerpt(candidate, allowance) : null;
  return textOf;
}

import { perEntryCap } from '../budget/per-entry-cap';
import { entryTokens } from '../render/render-entry';
import { Candidate } from '../tiering/candidate';
import { DetailPins, DetailStat, detailStat, NO_PINS, pinFor } from '../tiering/detail-pins';
import { Tier, tierRank } from '../tiering/tier';
import { tiersDownFrom, tierWindow } from '../tiering/tier-window';
import { tierText } from '../tiering/tier-text';
import { AssembledEntry, entryFor } from './assembled-entry';
import { redundantEntries } from './redundancy';

const SEPARATOR_TOKENS = 1;
/** Redundancy rounds: each frees budget that the next refills; two rounds settle in practice. */
const MAX_ROUNDS = 3;

export interface PlanInput {
  /** Candidates in rank order. */
  candidates: readonly Candidate[];
  /** Bodies by content URI (see `contentUriFor`), already normalised; missing = unreadable. */
  contents: ReadonlyMap<string, string>;
  maxTokens: number;
  pins?: DetailPins;
}

export interface FillStats {
  floorTokens: number;
  overviewUpgrades: number;
  fullUpgrades: number;
  spareUpgrades: number;
}

/** The budgeting half of `stats` (§5.4, max_tokens … fill). */
export interface PlanStats {
  maxTokens: number;
  usedTokens: number;
  perEntryCap: number;
  returned: number;
  dropped: number;
  deduped: number;
  /** Served-then-withdrawn entries whose text the other entries already carry (docs/context.md, "Redundancy"). */
  redundant: number;
  detail: DetailStat;
  tierCounts: Partial<Record<Tier, number>>;
  fill: FillStats;
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
 * Breadth-first, then depth (§8.5): place every candidate at its start tier (falling back down
 * the ladder, never truncating), skip duplicate texts, then spend what is left on overview, full
 * and finally cap-free full upgrades, best-ranked first. Then withdraw entries the others already
 * carry (near-duplicates, directory listings of served files) and spend what they held on the
 * candidates and upgrades that did not fit, for a few rounds.
 */
export function planEntries(input: PlanInput): { entries: AssembledEntry[]; stats: PlanStats } {
  const maxTokens = Math.max(1, Math.trunc(input.maxTokens));
  const pins = input.pins ?? NO_PINS;
  const cap = perEntryCap(maxTokens, input.candidates.length);
  const fitsCap = (tier: Tier, tokens: number): boolean => tier === 'uri' || tokens <= cap;
  let slots: Slot[] = [];
  const seenTexts = new Set<string>();
  // Candidates not to try again: placed, deduped or withdrawn as redundant. Dropped ones are retried.
  const settled = new Set<Candidate>();
  let used = 0;
  let dropped = 0;
  let deduped = 0;
  let redundant = 0;
  const separators = () => Math.max(0, slots.length - 1) * SEPARATOR_TOKENS;
  const recount = () => (used = slots.reduce((sum, slot) => sum + slot.entry.tokens, 0) + separators());

  const floor = (): void => {
    dropped = 0;
    for (const candidate of input.candidates) {
      if (settled.has(candidate)) continue;
      const { start, ceiling } = tierWindow(candidate, pinFor(pins, candidate.category));
      let placed: AssembledEntry | null = null;
      for (const tier of tiersDownFrom(candidate, start)) {
        const text = tierText(candidate, tier, input.contents);
        if (text === null) continue;
        const entry = build(candidate, tier, text);
        const cost = entry.tokens + (slots.length ? SEPARATOR_TOKENS : 0);
        if (!fitsCap(tier, entry.tokens) || used + cost > maxTokens) continue;
        placed = entry;
        break;
      }
      if (!placed) {
        dropped += 1;
        continue;
      }
      settled.add(candidate);
      // Dedupe on what is injected: two URIs sharing an unshown abstract are still two pointers.
      const key = placed.text || candidate.baseUri;
      if (seenTexts.has(key)) {
        deduped += 1;
        continue;
      }
      seenTexts.add(key);
      used += placed.tokens + (slots.length ? SEPARATOR_TOKENS : 0);
      slots.push({ candidate, entry: placed, ceiling });
    }
  };

  const upgrade = (target: Tier, respectCap: boolean): number => {
    let upgraded = 0;
    for (const slot of slots) {
      if (tierRank(slot.entry.detail) >= tierRank(target) || tierRank(target) > tierRank(slot.ceiling)) continue;
      const text = tierText(slot.candidate, target, input.contents);
      if (text === null) continue;
      const entry = build(slot.candidate, target, text);
      if (respectCap && !fitsCap(target, entry.tokens)) continue;
      const delta = entry.tokens - slot.entry.tokens;
      if (used + delta > maxTokens) continue;
      slot.entry = entry;
      used += delta;
      upgraded += 1;
    }
    return upgraded;
  };

  // Slots keep rank order: a refilled candidate goes where its rank puts it, not at the end.
  const order = new Map(input.candidates.map((c, i) => [c, i]));
  let floorTokens = 0;
  const fill: FillStats = { floorTokens: 0, overviewUpgrades: 0, fullUpgrades: 0, spareUpgrades: 0 };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    floor();
    slots.sort((a, b) => order.get(a.candidate)! - order.get(b.candidate)!);
    recount();
    if (round === 0) floorTokens = used;
    fill.overviewUpgrades += upgrade('overview', true);
    fill.fullUpgrades += upgrade('full', true);
    fill.spareUpgrades += upgrade('full', false);
    if (round === MAX_ROUNDS - 1) break;
    const gone = redundantEntries(slots.map((slot) => ({ text: slot.entry.text, isDirectory: slot.candidate.isDirectory })));
    if (gone.size === 0) break;
    redundant += gone.size;
    slots = slots.filter((_, i) => !gone.has(i));
    recount();
  }
  fill.floorTokens = floorTokens;

  const entries = slots.map((slot) => slot.entry);
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
      detail: detailStat(pins),
      tierCounts,
      fill,
    },
  };
}

import { perEntryCap } from '../budget/per-entry-cap';
import { renderContext } from '../render/render-entry';
import { Candidate } from '../tiering/candidate';
import { normalizeDetail } from '../tiering/detail-pins';
import { EntryJson, entryToJson } from './assembled-entry';
import { ExplainEntry } from './explain';
import { planEntries, PlanStats, strongCandidates } from './plan-entries';
import { bodiesWithinTotal, bodyReadChars, ContentRead, planContentReads } from './read-policy';
import { SeenEntry } from './seen-entries';
import { contentUriFor } from '../tiering/tier-text';
import { StageTimer } from '../stats/stage-timer';

/** What one context block is assembled from (the `assemble` job without its identity). */
export interface BlockRequest {
  /** Candidates in rank order. */
  candidates: readonly Candidate[];
  maxTokens: number;
  /** The request's raw `detail`; resolved here. */
  detail: unknown;
  query?: string;
  primary?: number;
  explain?: boolean;
  /** Entries served in earlier turns of the session, found again by this request (docs/context.md, "Across turns"). */
  seen?: readonly SeenEntry[];
}

/** A planned and rendered block (docs/contract.md#tiers-and-budget, #rendered-block). */
export interface AssembledBlock {
  entries: EntryJson[];
  rendered: string;
  plan: PlanStats;
  explain?: ExplainEntry[];
}

/**
 * The bodies worth reading for this block, in rank order (docs/contract.md#tiers-and-budget), less those the
 * search already carried ({@link carriedBodies}).
 */
export function planBlockReads(
  req: BlockRequest,
  carried: ReadonlyMap<string, string> = carriedBodies(req),
): ContentRead[] {
  // The planner sets weak candidates aside before anything else: their bodies are never needed.
  const candidates = strongCandidates(req.candidates);
  const cap = perEntryCap(req.maxTokens, Math.min(candidates.length, req.primary ?? candidates.length));
  const reads = planContentReads(candidates, cap, normalizeDetail(req.detail)).filter((r) => !carried.has(r.uri));
  // An earlier turn's entry served from its body: that body says what the agent holds.
  const have = new Set([...reads.map((r) => r.uri), ...carried.keys()]);
  for (const { candidate, detail } of req.seen ?? []) {
    const uri = contentUriFor(candidate);
    if (detail === 'abstract' || have.has(uri)) continue;
    have.add(uri);
    reads.push({ uri, openContext: candidate.origin === 'other_peer' });
  }
  return reads;
}

/**
 * Bodies the search carried, by content URI (docs/context.md, "Bodies the search carries"): a directory's
 * overview hit is its sidecar body, and a memory file found indexed at its current revision has its whole body
 * as its abstract (`Candidate.wholeBody`), so reading them again is a store round trip for the same text. Only
 * up to what an assembly would read of a body (`bodyReadChars`): a longer one is read, and cut, as before.
 */
export function carriedBodies(req: BlockRequest): Map<string, string> {
  const maxChars = bodyReadChars(req.maxTokens);
  const carried = new Map<string, string>();
  for (const candidate of [...req.candidates, ...(req.seen ?? []).map((s) => s.candidate)]) {
    if (candidate.wholeBody && candidate.abstract.length <= maxChars) {
      carried.set(contentUriFor(candidate), candidate.abstract);
    }
  }
  return carried;
}

/**
 * The bodies a plan of `req` works over ({@link bodiesWithinTotal}): the planned candidates' in rank order, then
 * those of entries served in earlier turns. The assembler and the gateway's fallback pass their bodies through it.
 */
export function planBodies(req: BlockRequest, contents: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  const ranked = [...strongCandidates(req.candidates), ...(req.seen ?? []).map((s) => s.candidate)];
  return bodiesWithinTotal(ranked, contents);
}

/**
 * Plans tiers within the budget and renders the block from the bodies at hand. The assembler calls it (through
 * `assembleReading`) with the carried bodies and those of {@link planBlockReads}; the gateway's fallback, when
 * the assembler fails, with the carried bodies only (nothing read), so both answer the same shape by the same
 * rules.
 */
export function assembleBlock(
  req: BlockRequest,
  contents: ReadonlyMap<string, string> = new Map(),
  timer: StageTimer = new StageTimer(() => 0),
): AssembledBlock {
  const { entries, stats, explain } = timer.timeSync('plan', () =>
    planEntries({
      candidates: req.candidates,
      contents,
      maxTokens: req.maxTokens,
      pins: normalizeDetail(req.detail),
      query: req.query,
      explain: req.explain === true,
      primary: req.primary,
      seen: req.seen,
    }),
  );
  return {
    entries: entries.map(entryToJson),
    rendered: timer.timeSync('render', () => renderContext(entries)),
    plan: stats,
    ...(explain ? { explain } : {}),
  };
}

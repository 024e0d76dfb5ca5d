import { Candidate, Origin } from '../tiering/candidate';
import { Category } from '../tiering/category';
import { Tier } from '../tiering/tier';
import { WordCorrection } from '../text/spelling-variants';

/** Most candidates `explain` reports (the rest are counted in `omitted`): the answer stays bounded. */
export const MAX_EXPLAINED = 200;

export type ExplainOutcome = 'served' | 'deduped' | 'redundant' | 'weak' | 'dropped' | 'excluded' | 'cooled';

/** One candidate's story (docs/context.md, "Explain"), snake_case on the wire. */
export interface ExplainEntry {
  uri: string;
  category: Category | null;
  origin: Origin | null;
  /** 1-based position in the ranked candidate list (null for hits never made candidates). */
  rank: number | null;
  score: number | null;
  ranked_score: number | null;
  directory: boolean;
  outcome: ExplainOutcome;
  /** Tier served (served only), the tier it started from and the deepest it could reach. */
  detail: Tier | null;
  start: Tier | null;
  ceiling: Tier | null;
  tokens: number;
  /** Short reasons, fixed vocabulary plus numbers and URIs; never memory text. */
  why: string[];
}

export interface ExplainBlock {
  entries: ExplainEntry[];
  omitted: number;
  /** Query words the searches read as a variant (docs/context.md, "Misspelt query words"), first seen first. */
  corrected: WordCorrection[];
}

/** Mutable notes the planner keeps per candidate while planning with `explain`. */
export interface PlanNote {
  start: Tier;
  ceiling: Tier;
  outcome: 'served' | 'deduped' | 'redundant' | 'weak' | 'dropped';
  why: string[];
}

export function explainCandidate(
  candidate: Candidate,
  rank: number,
  note: PlanNote,
  served: { detail: Tier; tokens: number } | null,
): ExplainEntry {
  return {
    uri: candidate.baseUri,
    category: candidate.category,
    origin: candidate.origin,
    rank,
    score: candidate.score,
    ranked_score: candidate.rankedScore,
    directory: candidate.isDirectory,
    outcome: note.outcome,
    detail: served?.detail ?? null,
    start: note.start,
    ceiling: note.ceiling,
    tokens: served?.tokens ?? 0,
    why: note.why,
  };
}

/** A hit that never became a candidate: excluded by the request or cooled by the session ledger. */
export function explainExcluded(uri: string, cooled: boolean): ExplainEntry {
  return {
    uri,
    category: null,
    origin: null,
    rank: null,
    score: null,
    ranked_score: null,
    directory: false,
    outcome: cooled ? 'cooled' : 'excluded',
    detail: null,
    start: null,
    ceiling: null,
    tokens: 0,
    why: [cooled ? 'served within the last dedup_turns of this session (ledger)' : 'listed in exclude_uris'],
  };
}

/** The bounded block: candidates first (rank order), then excluded hits; then the corrected words. */
export function explainBlock(entries: ExplainEntry[], corrected: WordCorrection[] = []): ExplainBlock {
  return {
    entries: entries.slice(0, MAX_EXPLAINED),
    omitted: Math.max(0, entries.length - MAX_EXPLAINED),
    corrected,
  };
}

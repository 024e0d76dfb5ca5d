import { pyFloat, pyInt } from '../text/py-coerce';
import { WordCorrection } from '../text/spelling-variants';

/**
 * One `/find` item as it arrives from the retriever (docs/contract.md#find-response); fields are loosely typed on
 * purpose.
 */
export interface FindHit {
  uri?: unknown;
  score?: unknown;
  abstract?: unknown;
  overview?: unknown;
  level?: unknown;
  category?: unknown;
  context_type?: unknown;
  /** Internal (never in a /find answer): the abstract is the body behind the node's deeper tiers (Candidate.wholeBody). */
  wholeBody?: unknown;
}

/** A `/find` result: one list per context type. */
export interface FindResultLike {
  memories?: readonly FindHit[] | null;
  resources?: readonly FindHit[] | null;
  skills?: readonly FindHit[] | null;
  /** Searched without the query's vector (its embedding failed or its circuit was open). */
  lexicalOnly?: boolean;
  /** Query words read as their one-edit variant (docs/context.md, "Misspelt query words"). */
  corrected?: readonly WordCorrection[];
}

export type ResultList = 'memories' | 'resources' | 'skills';

function text(value: unknown): string {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return '';
  return String(value);
}

/** The hit's URI, or "" when it has none (such hits are skipped). */
export function hitUri(hit: FindHit): string {
  return text(hit.uri);
}

/** The hit's score as a finite number; missing, unparsable, inf or NaN → 0 (as /find sanitises). */
export function hitScore(hit: FindHit): number {
  const score = pyFloat(hit.score ?? 0);
  return score !== null && Number.isFinite(score) ? score : 0;
}

/** `abstract`, else `overview`, else "". */
export function hitAbstract(hit: FindHit): string {
  return text(hit.abstract) || text(hit.overview);
}

/** Hit level, 2 (file) when absent. */
export function hitLevel(hit: FindHit): number {
  return pyInt(hit.level) ?? 2;
}

/** The list of a result that a bucket reads: resources/skills by name, every memory bucket from `memories`. */
export function resultList(result: FindResultLike | null | undefined, list: ResultList): readonly FindHit[] {
  return result?.[list] ?? [];
}

/** Dedupe by exact URI keeping the best-scoring occurrence at the first occurrence's position. */
export function dedupeHitsKeepBest(hits: readonly FindHit[]): FindHit[] {
  const positions = new Map<string, number>();
  const out: FindHit[] = [];
  for (const hit of hits) {
    const uri = hitUri(hit);
    if (!uri) continue;
    const at = positions.get(uri);
    if (at === undefined) {
      positions.set(uri, out.length);
      out.push(hit);
    } else if (hitScore(hit) > hitScore(out[at]!)) {
      out[at] = hit;
    }
  }
  return out;
}

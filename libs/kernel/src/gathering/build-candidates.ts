import { Candidate, ORIGIN_ORDER } from '../tiering/candidate';
import { BucketKey } from '../tiering/category';
import { stripSidecarSuffix } from '../uri/uri-path';
import { categoryFor } from './category-for';
import { FindHit, hitAbstract, hitLevel, hitScore, hitUri } from './find-hit';
import { originForUri } from './origin';
import { PenaltyMap } from './penalties';

/** What candidate building needs to know about the caller. */
export interface BuildContext {
  userId: string;
  actorPeerId: string | null;
  penalties: PenaltyMap;
  /** Caller exclusions ∪ cooled URIs (docs/contract.md#pipeline step 6). */
  excluded: ReadonlySet<string>;
}

/**
 * Turn hits into candidates (docs/contract.md#candidates-from-hits): skip URI-less hits and `profile.md`, drop (and
 * count) excluded
 * URIs, strip sidecar suffixes, derive category and origin, and penalise other peers for ranking.
 */
export function buildCandidates(
  items: ReadonlyArray<{ hit: FindHit; bucket: BucketKey | null }>,
  context: BuildContext,
): { candidates: Candidate[]; excluded: number; excludedUris: string[]; excludedCandidates: Candidate[] } {
  const candidates: Candidate[] = [];
  const excludedUris: string[] = [];
  // The excluded hits as candidates: the cooled ones say what the session was already given (docs/context.md).
  const excludedCandidates: Candidate[] = [];
  let excluded = 0;
  for (const { hit, bucket } of items) {
    const uri = hitUri(hit);
    if (!uri) continue;
    const { baseUri, isDirectory } = stripSidecarSuffix(uri);
    if (baseUri.endsWith('/profile.md')) continue;
    const category = categoryFor(uri, bucket, hit.category);
    const origin = originForUri(baseUri, context.userId, context.actorPeerId);
    const score = hitScore(hit);
    const penalty = origin === 'other_peer' ? context.penalties[category] : 0;
    const isExcluded = context.excluded.has(uri) || context.excluded.has(baseUri);
    if (isExcluded) {
      excluded += 1;
      excludedUris.push(baseUri);
    }
    (isExcluded ? excludedCandidates : candidates).push({
      uri,
      baseUri,
      category,
      score,
      rankedScore: score - penalty,
      level: hitLevel(hit),
      abstract: hitAbstract(hit),
      origin,
      isDirectory,
      ...(hit.wholeBody === true ? { wholeBody: true as const } : {}),
    });
  }
  return { candidates, excluded, excludedUris, excludedCandidates };
}

/**
 * Stable rank sort (docs/contract.md#candidates-from-hits): ranked score descending, then origin actor_peer, self,
 * other_peer — except that a directory holding a file among these candidates ranks after every file and
 * every other directory (docs/context.md, "Directories after their files"): its overview is made of its
 * children's summaries, so it matches as well as they do, and would otherwise take the candidate places
 * and budget of the files that state the facts.
 */
export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  const late = summarisingDirectories(candidates);
  const tier = (c: Candidate) => (late.has(c) ? 1 : 0);
  return [...candidates].sort(
    (a, b) =>
      tier(a) - tier(b) ||
      b.rankedScore - a.rankedScore ||
      ORIGIN_ORDER.indexOf(a.origin) - ORIGIN_ORDER.indexOf(b.origin),
  );
}

/** Directory candidates with a file candidate somewhere below them: a sort and one binary search per directory. */
function summarisingDirectories(candidates: readonly Candidate[]): Set<Candidate> {
  const late = new Set<Candidate>();
  const dirs = candidates.filter((c) => c.isDirectory);
  if (dirs.length === 0) return late;
  const files = candidates
    .filter((c) => !c.isDirectory)
    .map((c) => c.baseUri)
    .sort();
  for (const d of dirs) {
    // The first file URI at or after `dir/` in sorted order is under the directory if any file is.
    const prefix = `${d.baseUri}/`;
    let lo = 0;
    let hi = files.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (files[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    if (files[lo]?.startsWith(prefix)) late.add(d);
  }
  return late;
}

/** Dedupe across buckets by node URI, keeping the higher raw score at the first-seen position. */
export function dedupeCandidates(candidates: readonly Candidate[]): Candidate[] {
  const positions = new Map<string, number>();
  const out: Candidate[] = [];
  for (const candidate of candidates) {
    const at = positions.get(candidate.baseUri);
    if (at === undefined) {
      positions.set(candidate.baseUri, out.length);
      out.push(candidate);
    } else if (candidate.score > out[at]!.score) {
      out[at] = candidate;
    }
  }
  return out;
}

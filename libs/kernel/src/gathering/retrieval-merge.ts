import { Identity } from '../identity/identity';
import { Candidate } from '../tiering/candidate';
import { BucketKey } from '../tiering/category';
import { buildCandidates, BuildContext, dedupeCandidates, rankCandidates } from './build-candidates';
import { dedupeHitsKeepBest, FindHit, FindResultLike, hitUri, resultList, ResultList } from './find-hit';
import { originForUri } from './origin';
import { PenaltyMap } from './penalties';
import { activeBuckets, QuotaMap } from './quotas';
import { RetrievalCall } from './retrieval-plan';
import { formatRetrievalError, RetrievalFailure } from './retrieval-errors';

/** What came back for one planned call: a result, or the failure to report. */
export type RetrievalOutcome =
  { call: RetrievalCall; result: FindResultLike | null } | { call: RetrievalCall; error: RetrievalFailure };

export interface MergeInput {
  identity: Identity;
  quotas: QuotaMap | null;
  limit: number;
  penalties: PenaltyMap;
  excluded: ReadonlySet<string>;
  /** One outcome per planned call, in plan order (as returned by `planRetrievalCalls`). */
  outcomes: readonly RetrievalOutcome[];
}

export interface MergeResult {
  candidates: Candidate[];
  /** `{bucket: distinct hits}` per active bucket, or `{all: n}` in flat mode. */
  searched: Record<string, number>;
  excluded: number;
  /** Base URIs of the hits dropped as excluded or cooled (for `explain`), distinct. */
  excludedUris: string[];
  /** Those hits as candidates, distinct by base URI, best first (cooled ones: docs/context.md, "Across turns"). */
  excludedCandidates: Candidate[];
  /** Every failure formatted `"<Name>: <message>"`; `stats` keeps the first five. */
  retrievalErrors: string[];
}

const FLAT_LISTS: readonly ResultList[] = ['memories', 'resources', 'skills'];

function listFor(bucket: BucketKey): ResultList {
  return bucket === 'resources' || bucket === 'skills' ? bucket : 'memories';
}

/**
 * Merge the fan-out into ranked candidates (docs/contract.md#bucketed-mode bucketed, docs/contract.md#flat-mode flat)
 * plus `searched`/`excluded`.
 */
export function mergeRetrievalResults(input: MergeInput): MergeResult {
  const errors: string[] = [];
  const own: Array<{ call: RetrievalCall; result: FindResultLike | null }> = [];
  const scans: Array<{ call: RetrievalCall; result: FindResultLike | null }> = [];
  for (const outcome of input.outcomes) {
    if ('error' in outcome) errors.push(formatRetrievalError(outcome.error));
    else (outcome.call.openContext ? scans : own).push(outcome);
  }
  const context: BuildContext = {
    userId: input.identity.userId,
    actorPeerId: input.identity.actorPeerId,
    penalties: input.penalties,
    excluded: input.excluded,
  };
  const isOtherPeer = (hit: FindHit) => originForUri(hitUri(hit), context.userId, context.actorPeerId) === 'other_peer';
  const searched: Record<string, number> = {};
  let excluded = 0;
  const excludedUris = new Set<string>();
  const excludedCandidates: Candidate[] = [];
  const answer = (candidates: Candidate[], hidden: Candidate[]): MergeResult => ({
    candidates,
    searched,
    excluded,
    excludedUris: [...excludedUris],
    excludedCandidates: rankCandidates(hidden),
    retrievalErrors: errors,
  });

  if (input.quotas === null) {
    const owners = new Map<string, BucketKey | null>();
    const found: FindHit[] = [];
    const note = (hit: FindHit, owner: BucketKey | null) => {
      if (!owners.has(hitUri(hit))) owners.set(hitUri(hit), owner);
      found.push(hit);
    };
    for (const { result } of own) {
      for (const list of FLAT_LISTS) {
        for (const hit of resultList(result, list)) note(hit, list === 'memories' ? null : list);
      }
    }
    for (const { result } of scans) {
      for (const hit of resultList(result, 'memories')) if (isOtherPeer(hit)) note(hit, null);
    }
    const hits = dedupeHitsKeepBest(found);
    searched['all'] = hits.length;
    const built = buildCandidates(
      hits.map((hit) => ({ hit, bucket: owners.get(hitUri(hit)) ?? null })),
      context,
    );
    excluded += built.excluded;
    for (const uri of built.excludedUris) excludedUris.add(uri);
    return answer(rankCandidates(built.candidates).slice(0, Math.max(0, input.limit)), built.excludedCandidates);
  }

  const perBucket: Candidate[] = [];
  for (const [bucket, quota] of activeBuckets(input.quotas)) {
    const list = listFor(bucket);
    const found: FindHit[] = [];
    for (const { call, result } of own) if (call.bucket === bucket) found.push(...resultList(result, list));
    for (const { call, result } of scans) {
      if (call.bucket !== bucket) continue;
      for (const hit of resultList(result, list)) {
        if (hitUri(hit).includes(`/memories/${bucket}/`) && isOtherPeer(hit)) found.push(hit);
      }
    }
    const hits = dedupeHitsKeepBest(found);
    searched[bucket] = hits.length;
    const built = buildCandidates(
      hits.map((hit) => ({ hit, bucket })),
      context,
    );
    excluded += built.excluded;
    for (const uri of built.excludedUris) excludedUris.add(uri);
    excludedCandidates.push(...built.excludedCandidates);
    perBucket.push(...rankCandidates(built.candidates).slice(0, quota));
  }
  return answer(rankCandidates(dedupeCandidates(perBucket)), dedupeCandidates(excludedCandidates));
}

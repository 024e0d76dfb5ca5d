import { FindResultLike } from '../gathering/find-hit';
import { normalizePenalties } from '../gathering/penalties';
import { QuotaMap } from '../gathering/quotas';
import { mergeRetrievalResults, RetrievalOutcome } from '../gathering/retrieval-merge';
import { PeerScope, planRetrievalCalls, RetrievalCall } from '../gathering/retrieval-plan';
import { Identity } from '../identity/identity';

/** Test-only: one context request's retrieval in miniature (plan the calls, answer each with `find`, merge). */
export interface RetrievalScenario {
  identity: Identity;
  quotas?: QuotaMap | null;
  limit?: number;
  peerScope?: PeerScope;
  queries?: string[];
  excluded?: string[];
  /** The retriever's answer per call (an Error is a failed call); no hits when absent. */
  find?: (call: RetrievalCall) => FindResultLike | Error;
}

export function runRetrieval(s: RetrievalScenario) {
  const excluded = new Set(s.excluded ?? []);
  const quotas = s.quotas ?? null;
  const calls = planRetrievalCalls({
    identity: s.identity,
    quotas,
    limit: s.limit ?? 10,
    peerScope: s.peerScope ?? 'all',
    queries: s.queries ?? ['q'],
    excludedCount: excluded.size,
  });
  const outcomes: RetrievalOutcome[] = calls.map((call) => {
    const found = (s.find ?? (() => ({})))(call);
    return found instanceof Error
      ? { call, error: { name: found.name, message: found.message } }
      : { call, result: found };
  });
  const merged = mergeRetrievalResults({
    identity: s.identity,
    quotas,
    limit: s.limit ?? 10,
    penalties: normalizePenalties(null),
    excluded,
    outcomes,
  });
  return { calls, targets: calls.map((c) => c.targetUri), ...merged };
}

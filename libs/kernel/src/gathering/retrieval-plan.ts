import { defaultTargets } from '../identity/default-targets';
import { ContextType, Identity } from '../identity/identity';
import { BucketKey, MEMORY_CATEGORIES } from '../tiering/category';
import { userRoot } from '../uri/uri-path';
import { overfetch, peerScanLimit } from './overfetch';
import { activeBuckets, QuotaMap } from './quotas';

export type PeerScope = 'actor' | 'all';

/** One `find` call of the fan-out (docs/contract.md#bucketed-mode, #flat-mode). */
export interface RetrievalCall {
  /** Owning bucket in bucketed mode; null in flat mode. */
  bucket: BucketKey | null;
  query: string;
  /** "" = the caller's default targets (flat mode). */
  targetUri: string;
  /** Search without the actor view; true exactly for the other-peer scan of `{u}/peers`. */
  openContext: boolean;
  limit: number;
  /** Context type AND-ed into the request filter (bucketed mode), or null to use it as is. */
  contextTypeFilter: ContextType | null;
}

export interface RetrievalPlanInput {
  identity: Identity;
  quotas: QuotaMap | null;
  /** Flat-mode candidate ceiling (`node_limit ?? limit`). */
  limit: number;
  peerScope: PeerScope;
  /** Planned queries, original first; blanks are dropped, none at all searches "". */
  queries: readonly string[];
  /** Size of the excluded set (exclusions ∪ cooled), for over-fetch. */
  excludedCount: number;
}

const BUCKET_TYPE: Readonly<Record<BucketKey, ContextType>> = {
  events: 'memory',
  entities: 'memory',
  preferences: 'memory',
  experiences: 'memory',
  resources: 'resource',
  skills: 'skill',
};

/** Search directories owning a bucket (docs/contract.md#bucketed-mode), actor view applied. */
export function bucketTargets(identity: Identity, bucket: BucketKey): string[] {
  const root = userRoot(identity.userId);
  const actor = identity.actorPeerId;
  if (bucket === 'resources') {
    const defaults = defaultTargets(identity, 'resource');
    if (defaults.length) return defaults;
    return actor
      ? [`${root}/resources`, 'viking://resources', `${root}/peers/${actor}/resources`]
      : [`${root}/resources`, 'viking://resources'];
  }
  if (bucket === 'skills') {
    const defaults = defaultTargets(identity, 'skill');
    return defaults.length ? defaults : [`${root}/skills`, 'viking://agent/skills'];
  }
  const roots = actor ? [`${root}/memories`, `${root}/peers/${actor}/memories`] : [`${root}/memories`];
  return roots.map((memoryRoot) => `${memoryRoot}/${bucket}`);
}

/** Every retrieval call of one context request, in merge order: own scopes first, then peer scans. */
export function planRetrievalCalls(input: RetrievalPlanInput): RetrievalCall[] {
  const queries = input.queries.filter((query) => query);
  const planned = queries.length ? queries : [''];
  const peers = `${userRoot(input.identity.userId)}/peers`;
  const scanPeers = input.peerScope === 'all';
  const calls: RetrievalCall[] = [];
  if (input.quotas === null) {
    const want = input.limit;
    for (const query of planned) {
      calls.push({
        bucket: null,
        query,
        targetUri: '',
        openContext: false,
        limit: overfetch(want, input.excludedCount),
        contextTypeFilter: null,
      });
    }
    if (scanPeers) {
      for (const query of planned) {
        calls.push({
          bucket: null,
          query,
          targetUri: peers,
          openContext: true,
          limit: peerScanLimit(want, input.excludedCount),
          contextTypeFilter: null,
        });
      }
    }
    return calls;
  }
  for (const [bucket, quota] of activeBuckets(input.quotas)) {
    const type = BUCKET_TYPE[bucket];
    for (const query of planned) {
      for (const targetUri of bucketTargets(input.identity, bucket)) {
        calls.push({
          bucket,
          query,
          targetUri,
          openContext: false,
          limit: overfetch(quota, input.excludedCount),
          contextTypeFilter: type,
        });
      }
    }
    if (scanPeers && (MEMORY_CATEGORIES as readonly string[]).includes(bucket)) {
      for (const query of planned) {
        calls.push({
          bucket,
          query,
          targetUri: peers,
          openContext: true,
          limit: peerScanLimit(quota, input.excludedCount),
          contextTypeFilter: type,
        });
      }
    }
  }
  return calls;
}

import type { FilterNode, Identity } from '@app/kernel';

/**
 * Payload of a `find` job: one retrieval call of docs/contract.md#find with everything already resolved by the
 * gateway (canonical targets, folded filter). `identity` is the read context: the caller's, or the
 * open context (no actor) for other-peer scans.
 */
export interface FindJob {
  identity: Identity;
  query: string;
  /** Directories to search (prefixes); [] means no restriction (root callers only). */
  targets: string[];
  filter: FilterNode | null;
  /** L0/L1/L2 restriction, or null for all. */
  levels: number[] | null;
  limit: number;
  /** Keep hits scoring strictly above this; null → 0. */
  scoreThreshold: number | null;
}

/** One hit, exactly the wire shape of a /find item (docs/contract.md#find-response). */
export interface FindHit {
  context_type: 'memory' | 'resource' | 'skill';
  uri: string;
  level: number;
  score: number;
  abstract: string;
  tags: string[];
}

/** Result of a `find` job: the /find `result` object (docs/contract.md#find-response). */
export interface FindResult {
  memories: FindHit[];
  resources: FindHit[];
  skills: FindHit[];
  total: number;
}

import { Category } from './category';

/** Where a hit lives relative to the caller: the actor's peer, the caller's own space, or another peer. */
export type Origin = 'actor_peer' | 'self' | 'other_peer';
export const ORIGIN_ORDER: readonly Origin[] = ['actor_peer', 'self', 'other_peer'];

/** One retrieval hit resolved enough to plan a tier for it (docs/contract.md#candidates-from-hits). */
export interface Candidate {
  /** The URI as retrieved (may carry a sidecar suffix). */
  uri: string;
  /** The node URI: sidecar suffix stripped; what entries report. */
  baseUri: string;
  category: Category;
  /** Raw retrieval score; reported and rendered. */
  score: number;
  /** Score minus the other-peer penalty; used for ranking only. */
  rankedScore: number;
  level: number;
  abstract: string;
  /** `other_peer` bodies must be read with the open context (no actor view). */
  origin: Origin;
  isDirectory: boolean;
  /**
   * `abstract` is the body its overview and full tiers are read from (`contentUriFor`): a directory's overview
   * hit, or a file the search found indexed at its current revision with its whole body as abstract
   * (`abstractIsWholeBody`). The assembler serves from it instead of reading it again (docs/context.md,
   * "Bodies the search carries"). Absent: the body is read as before.
   */
  wholeBody?: true;
}

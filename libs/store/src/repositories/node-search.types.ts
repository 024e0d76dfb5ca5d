import type { ContextType, FilterNode, Identity, WordCorrection } from '@app/kernel';

/** One `find` over the store: everything resolved, nothing left to trust from the caller. */
export interface NodeSearchQuery {
  identity: Identity;
  /** Directory prefixes to search (OR-ed); [] means everything the identity may see. */
  targets: string[];
  filter: FilterNode | null;
  /** Tiers to return (0 abstract, 1 overview, 2 file); null for all. */
  levels: number[] | null;
  limit: number;
  /** Keep hits scoring strictly above this; null means 0. */
  scoreThreshold: number | null;
  /** The query embedding and the id of the embedder that made it; null searches lexically only. */
  vector: { values: Float32Array; embedderId: string } | null;
  /** Query terms segmented like `search_text` (kernel `searchText`), function words removed. */
  terms: string[];
  /** Reference time for relative bounds in the filter. */
  now?: Date;
}

/** One scored hit; `uri` carries the sidecar suffix for directory tiers (docs/contract.md#find-response). */
export interface NodeSearchHit {
  uri: string;
  level: number;
  contextType: ContextType;
  score: number;
  abstract: string;
  tags: string[];
  /**
   * `abstract` is the text the node's body-backed tiers are read from: a directory's overview hit (its sidecar
   * body), or a file indexed at its current revision whose abstract is its whole body (`abstractIsWholeBody`).
   * Context assembly serves from it instead of reading it again (docs/context.md, "Bodies the search carries").
   */
  wholeBody: boolean;
  /** The two signals behind `score`, for evaluation and debugging. */
  lexical: number;
  vector: number;
}

/** How the two signals are mixed; the weights sum to 1 so the score stays in 0..1. */
export interface RankingWeights {
  lexical: number;
  vector: number;
}

/** A search's hits and the query words it read as variants. */
export interface SearchAnswer {
  hits: NodeSearchHit[];
  corrected: WordCorrection[];
}

/** One node of the `viking://` tree as the store returns it (no embedding). */
export interface NodeRecord {
  uri: string;
  parentUri: string | null;
  kind: 'file' | 'directory';
  contextType: 'memory' | 'resource' | 'skill';
  abstract: string;
  overview: string;
  content: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  embedderId: string | null;
  indexedAt: string | null;
}

export type WriteMode = 'create' | 'replace' | 'append';

export interface WriteInput {
  uri: string;
  content: string;
  mode: WriteMode;
  tags?: string[];
}

export interface WriteOutcome {
  uri: string;
  created: boolean;
  /** Directories created on the way (nearest last). */
  createdDirectories: string[];
  size: number;
}

/** What the indexer stores after embedding a node. */
export interface IndexUpdate {
  abstract: string;
  overview?: string;
  searchText: string;
  embedding: Float32Array | null;
  embedderId: string | null;
}

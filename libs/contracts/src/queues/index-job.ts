/** Payload of an `index` job: (re)index one node, or forget it after a delete. */
export interface IndexJob {
  accountId: string;
  uri: string;
  op: 'upsert' | 'delete';
  /** Directory URIs whose sidecars must be refreshed (parents of the node, nearest first). */
  parents: string[];
}

/** Result of an `index` job. */
export interface IndexResult {
  uri: string;
  indexed: boolean;
  embedderId: string | null;
  refreshedDirectories: number;
}

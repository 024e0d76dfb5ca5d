import type { StageTimings } from '@app/kernel';

/**
 * Payload of an `index` job: one entry of the store's write outbox. `upsert` (re)indexes the named
 * nodes and refreshes their directories' summaries; `delete` refreshes the summaries of the
 * directories that held the deleted nodes. The job deletes its outbox entry once done.
 */
export interface IndexJob {
  accountId: string;
  /** Id of the outbox entry (also the `rev` the write gave the nodes). */
  outboxId: number;
  /** The entry's creation time in µs (decimal): with the id, names the entry across store lifetimes. */
  stamp?: string;
  op: 'upsert' | 'delete';
  uris: string[];
}

/** What became of a directory summary after an index job. */
export type SidecarStatus = 'complete' | 'deferred' | 'skipped';

/** Result of an `index` job. */
export interface IndexResult {
  /** Nodes whose index now matches their content. */
  indexed: number;
  embedderId: string | null;
  /**
   * Summaries of the directories holding the job's nodes: `complete` when refreshed by this job,
   * `deferred` when coalesced into a refresh scheduled shortly (the directory was refreshed moments ago).
   */
  directories: SidecarStatus;
  /** Failed attempts of this job before the one that succeeded (BullMQ retries; 0 in-process). */
  retries?: number;
  /** The worker's stage times (docs/architecture.md, "Stage timings"); metrics only, never on the wire. */
  stages?: StageTimings;
}

/** Payload of a `sidecar` job: recompute one directory's summary (coalesced per directory). */
export interface SidecarJob {
  accountId: string;
  uri: string;
}

/** Result of a `sidecar` job: how many directories (the given one and changed ancestors) were refreshed. */
export interface SidecarResult {
  refreshed: number;
}

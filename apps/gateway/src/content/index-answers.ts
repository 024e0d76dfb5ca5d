import type { PendingIndexWait, StageTimings } from '@app/kernel';

/** How the index work of a set of writes ended, as the content routes report it. */
export interface IndexOutcome {
  status: 'complete' | 'failed';
  /** What became of the directory summaries (`deferred`: coalesced into a refresh moments away). */
  directories: 'complete' | 'deferred' | 'skipped';
  indexed: number;
  /** Failed attempts, later retried, of the entries' jobs that completed. */
  requeued: number;
  /** Nodes named by the entries whose job failed. */
  failedNodes: number;
  errors: string[];
  /** The completed jobs' worker stage times, summed (metrics only). */
  stages: StageTimings;
}

/** The index fields of a write that changed nothing: nothing to index. */
export const NOT_INDEXED = { semantic_status: 'skipped', vector_status: 'skipped', queue_status: null };

/** The index fields of a write whose indexing was not waited for. */
export const QUEUED = { semantic_status: 'queued', vector_status: 'queued', queue_status: null };

/** Failure reasons a reindex answer carries at most. */
const MAX_REINDEX_WARNINGS = 20;

/** What became of the directory summaries (`deferred`: they include the nodes within the summary interval). */
function semanticStatus(o: IndexOutcome): string {
  return o.status === 'failed' ? 'failed' : o.directories === 'deferred' ? 'deferred' : 'complete';
}

/** The index fields of a write whose indexing ended while it waited. */
function indexFields(o: IndexOutcome) {
  const errors = o.errors.map((message) => ({ message }));
  return {
    semantic_status: semanticStatus(o),
    vector_status: o.status,
    queue_status: {
      // Directory summaries run inside the index job, so its retries are theirs too.
      Semantic: {
        processed: o.status === 'complete' ? 1 : 0,
        requeue_count: o.requeued,
        error_count: errors.length,
        errors,
      },
      Embedding: { processed: o.indexed, requeue_count: o.requeued, error_count: errors.length, errors },
    },
  };
}

/**
 * A waiting route's answer once its write's indexing ended: the answer it had before the wait with the
 * outcome filled in. The route's first attempt answers with it, and so does a retry that waited again after
 * that attempt's wait ran out (docs/limits-and-security.md, "A retry after a wait that ran out").
 */
export function answerAfterIndex(
  w: Pick<PendingIndexWait, 'route' | 'answer' | 'startedAt'>,
  o: IndexOutcome,
  now = Date.now(),
): Record<string, unknown> {
  switch (w.route) {
    case 'write': {
      const fields = indexFields(o);
      // vectors_only: the node is re-embedded; its directory's summary is left as it is.
      if (w.answer.semantic_status === 'skipped') fields.semantic_status = 'skipped';
      return { ...w.answer, ...fields };
    }
    case 'batch-write':
      return { ...w.answer, ...indexFields(o) };
    case 'delete': {
      const errors = o.errors.map((message) => ({ message }));
      const processed = o.status === 'complete' ? 1 : 0;
      return {
        ...w.answer,
        semantic_status: semanticStatus(o),
        queue_status: {
          Semantic: { processed, requeue_count: o.requeued, error_count: errors.length, errors },
        },
      };
    }
    case 'reindex': {
      const scanned = Number(w.answer.scanned_records);
      return {
        ...w.answer,
        rebuilt_records: scanned - o.failedNodes,
        failed_records: o.failedNodes,
        duration_ms: now - w.startedAt,
        // Why nodes failed (one line per failed job, at most a few), so a partial rebuild explains itself.
        warnings: o.errors.slice(0, MAX_REINDEX_WARNINGS),
      };
    }
  }
}

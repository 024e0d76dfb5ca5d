import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { IndexJob, IndexResult } from '@app/contracts';
import { KernelError, KernelErrorCode, PendingIndexEntry, PendingIndexWait, StageTimer } from '@app/kernel';
import { IndexClient } from '@app/queue';
import { notePendingWait, OutboxRepository } from '@app/store';
import { answerAfterIndex, IndexOutcome } from './index-answers';

/** An outbox entry after the writer's attempt to enqueue it. */
export interface Dispatched {
  job: IndexJob;
  /** Null when the queue was unreachable: the relay enqueues the entry once it is back. */
  jobId: string | null;
}

const POLL_MS = 250;

/**
 * Hands committed outbox entries to the index queue right away (the fast path; the relay covers a
 * failure) and waits for them when a write asked to. See docs/architecture.md#write-path.
 */
@Injectable()
export class IndexDispatchService {
  private readonly logger = new Logger(IndexDispatchService.name);
  private warnedAt = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly indexer: IndexClient,
    private readonly outbox: OutboxRepository,
  ) {}

  /** Never throws: the entry is durable in the store, so a queue outage only delays indexing. */
  async dispatch(job: IndexJob): Promise<Dispatched> {
    try {
      return { job, jobId: await this.indexer.enqueue(job) };
    } catch (err) {
      if (Date.now() - this.warnedAt > 10_000) {
        this.warnedAt = Date.now();
        this.logger.warn(`index enqueue failed, the outbox relay will retry: ${(err as Error).message}`);
      }
      return { job, jobId: null };
    }
  }

  /**
   * Waits until every entry is indexed; DEADLINE_EXCEEDED (504) past the timeout (the writes stay stored), and
   * then `then`, the answer the route completes with the outcome, is left on the request's Idempotency-Key for
   * a retry to wait for again (docs/limits-and-security.md, "A retry after a wait that ran out").
   */
  async wait(
    dispatched: Dispatched[],
    timeoutS?: number,
    then?: Pick<PendingIndexWait, 'route' | 'answer' | 'startedAt'>,
  ): Promise<IndexOutcome> {
    const entries = dispatched.map((d) => ({ outboxId: d.job.outboxId, jobId: d.jobId, nodes: d.job.uris.length }));
    try {
      return await this.waitEntries(entries, timeoutS);
    } catch (err) {
      if (then && err instanceof KernelError && err.code === KernelErrorCode.DeadlineExceeded)
        notePendingWait({ ...then, entries, timeoutS: timeoutS ?? null });
      throw err;
    }
  }

  /** A retry's wait for the indexing of a write whose first wait ran out; the route's answer once it ended. */
  async resume(w: PendingIndexWait): Promise<Record<string, unknown>> {
    return answerAfterIndex(w, await this.waitEntries(w.entries, w.timeoutS ?? undefined));
  }

  private async waitEntries(entries: PendingIndexEntry[], timeoutS?: number): Promise<IndexOutcome> {
    const timeoutMs = timeoutS ? Math.round(timeoutS * 1000) : this.config.queues.writeWaitMs;
    const deadline = Date.now() + timeoutMs;
    const results = await Promise.allSettled(entries.map((e) => this.waitOne(e, deadline, timeoutMs)));
    const late = results.find(
      (r) =>
        r.status === 'rejected' &&
        r.reason instanceof KernelError &&
        r.reason.code === KernelErrorCode.DeadlineExceeded,
    );
    // One answer whichever wait ran out (the queue's or the store's): the write is stored and will be indexed.
    if (late) throw storedButNotIndexed(timeoutMs);
    const errors = results.flatMap((r) =>
      r.status === 'rejected' ? [String((r.reason as Error)?.message ?? r.reason)] : [],
    );
    const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const dirs = done.map((r) => r.directories);
    const stages = new StageTimer(() => 0);
    for (const r of done) for (const [stage, ms] of Object.entries(r.stages ?? {})) stages.add(stage, ms);
    return {
      status: errors.length ? 'failed' : 'complete',
      directories: dirs.includes('deferred') ? 'deferred' : dirs.includes('complete') ? 'complete' : 'skipped',
      indexed: done.reduce((n, r) => n + r.indexed, 0),
      requeued: done.reduce((n, r) => n + (r.retries ?? 0), 0),
      failedNodes: results.reduce((n, r, i) => n + (r.status === 'rejected' ? entries[i].nodes : 0), 0),
      errors,
      stages: stages.timings(),
    };
  }

  private async waitOne(e: PendingIndexEntry, deadline: number, timeoutMs: number): Promise<IndexResult> {
    if (e.jobId) {
      try {
        return await this.indexer.waitFor(e.jobId, Math.max(1, deadline - Date.now()));
      } catch (err) {
        // The queue went away while waiting, or (a retry waiting again) the finished job was removed: the
        // store still says when the entry is done.
        const code = err instanceof KernelError ? err.code : null;
        if (code !== KernelErrorCode.Unavailable && code !== KernelErrorCode.NotFound) throw err;
      }
    }
    return this.pollStore(e, deadline, timeoutMs);
  }

  /** Waiting without the queue: the index job deletes the entry once its nodes are indexed. */
  private async pollStore(e: PendingIndexEntry, deadline: number, timeoutMs: number): Promise<IndexResult> {
    for (;;) {
      const pending = await this.outbox.pending(e.outboxId).catch(() => true);
      if (!pending) return { indexed: e.nodes, embedderId: null, directories: 'deferred' };
      if (Date.now() + POLL_MS > deadline) throw storedButNotIndexed(timeoutMs);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}

/** 504 for a wait that ran out after the write was stored (`stored: true`: nothing is lost, nothing to resend). */
function storedButNotIndexed(timeoutMs: number): KernelError {
  const s = timeoutMs / 1000;
  return new KernelError(
    KernelErrorCode.DeadlineExceeded,
    `index job timed out after ${s}s; the write is stored and will be indexed`,
    { operation: 'index', timeout: s, stored: true },
  );
}

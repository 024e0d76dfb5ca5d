import { Injectable } from '@nestjs/common';
import { Semaphore } from 'async-mutex';

/** More shares than index jobs ever run at once in one process (MUNINN_WORKER_CONCURRENCY is at most 256). */
const SHARES = 4096;

/**
 * The durable runs of one retriever process (index and directory-summary jobs): any number at once, or one index
 * run alone (docs/architecture.md, "A job that kills its worker"). A run alone waits for the runs in progress to
 * end, and runs that arrive after it wait for it (the semaphore serves its waiters in order), so a worker that
 * dies during it died of it, not of a neighbour's durable work. Its texts also go to the embedder by themselves:
 * the batching embedder has no other job's to join them to. Search jobs are not gated (they are never run again
 * after their worker dies, and a run alone must not hold up every tenant's searches).
 */
@Injectable()
export class IndexRunGate {
  private readonly shares = new Semaphore(SHARES);

  /** Runs `work` beside other durable runs (after any run alone that waits before it). */
  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.shares.runExclusive(work, 1);
  }

  /** Runs `work` with no other durable run of this process beside it. */
  alone<T>(work: () => Promise<T>): Promise<T> {
    return this.shares.runExclusive(work, SHARES);
  }
}

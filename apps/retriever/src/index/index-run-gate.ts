import { Injectable } from '@nestjs/common';
import { Semaphore } from 'async-mutex';

/** More shares than index jobs ever run at once in one process (MUNINN_WORKER_CONCURRENCY is at most 256). */
const SHARES = 4096;

/**
 * Index runs of one process: any number at once, or one alone (docs/architecture.md, "A job that kills its
 * worker"). A run alone waits for the runs in progress to end, and runs that arrive after it wait for it (the
 * semaphore serves its waiters in order), so a worker that dies during it died of it, not of a neighbour. Its
 * texts also go to the embedder by themselves: the batching embedder has no other job's to join them to.
 */
@Injectable()
export class IndexRunGate {
  private readonly shares = new Semaphore(SHARES);

  /** Runs `work` beside other index runs (after any run alone that waits before it). */
  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.shares.runExclusive(work, 1);
  }

  /** Runs `work` with no other index run of this process beside it. */
  alone<T>(work: () => Promise<T>): Promise<T> {
    return this.shares.runExclusive(work, SHARES);
  }
}

import { performance } from 'node:perf_hooks';
import { StageTimer, StageTimings } from '@app/kernel';

/** One job a request awaited: its queue, and the worker's stages plus what only the gateway sees. */
export interface JobStages {
  queue: string;
  stages_ms: StageTimings;
}

/** What `telemetry.summary` gains for a context request (docs/contract.md#success-envelope). */
export interface StagesSummary {
  stages_ms: StageTimings;
  jobs: JobStages[];
}

/**
 * The stage times of one context request (docs/architecture.md, "Stage timings"): the gateway's own
 * stages (auth, session load, ledger read and write, the find fan-out, merge, assemble, digest) and, per
 * awaited job, the stages its worker reported (`queue_wait`, `run` and the parts of the run, summed
 * over a batch's calls) plus `return`, the part of the job's wall time the worker did not account for
 * (the result travelling back through the queue).
 */
export class RequestStages {
  private readonly timer = new StageTimer(() => performance.now());
  private readonly jobList: JobStages[] = [];

  time<T>(stage: string, work: () => Promise<T> | T): Promise<T> {
    return this.timer.time(stage, work);
  }

  add(stage: string, ms: number): void {
    this.timer.add(stage, ms);
  }

  /**
   * Awaits one job, recording its wall time and the stages its result carries, and returns the result
   * without them (they are for metrics and telemetry only, never for the wire).
   */
  async job<R extends { stages?: StageTimings }>(queue: string, call: () => Promise<R>): Promise<R> {
    const started = performance.now();
    const result = await call();
    const wall = performance.now() - started;
    const { stages, ...rest } = result;
    const worker = { ...(stages ?? {}) };
    // `run` is the worker's whole run; its parts may add up to more (a batch's calls run concurrently).
    const accounted =
      worker.run === undefined
        ? Object.values(worker).reduce((a, b) => a + b, 0)
        : worker.run + (worker.queue_wait ?? 0);
    const own = new StageTimer(() => 0);
    for (const [stage, ms] of Object.entries(worker)) own.add(stage, ms);
    own.add('return', wall - accounted);
    own.add('wall', wall);
    this.jobList.push({ queue, stages_ms: own.timings() });
    return rest as R;
  }

  summary(): StagesSummary {
    return { stages_ms: this.timer.timings(), jobs: this.jobList };
  }
}

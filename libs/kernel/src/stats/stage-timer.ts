/**
 * Milliseconds spent per named stage of one piece of work (docs/architecture.md, "Stage timings"):
 * a context request in the gateway, a find or assemble job in a worker.
 */
export type StageTimings = Record<string, number>;

/**
 * Adds up wall time per stage. The clock is injected (the kernel reads no clock of its own), so
 * callers pass `performance.now` and tests a counter. A stage timed twice (two finds' SQL) adds up.
 */
export class StageTimer {
  private readonly spent: StageTimings = {};

  constructor(private readonly now: () => number) {}

  /** Runs `work` and adds its wall time to `stage`, also when it fails. */
  async time<T>(stage: string, work: () => Promise<T> | T): Promise<T> {
    const started = this.now();
    try {
      return await work();
    } finally {
      this.add(stage, this.now() - started);
    }
  }

  /** {@link time} for synchronous work (planning, rendering): no promise, no extra tick. */
  timeSync<T>(stage: string, work: () => T): T {
    const started = this.now();
    try {
      return work();
    } finally {
      this.add(stage, this.now() - started);
    }
  }

  /** Adds `ms` (negative clock skew counts as 0) to `stage`. */
  add(stage: string, ms: number): void {
    this.spent[stage] = (this.spent[stage] ?? 0) + (Number.isFinite(ms) && ms > 0 ? ms : 0);
  }

  /** The stages so far, in the order first timed, rounded to hundredths of a millisecond. */
  timings(): StageTimings {
    const out: StageTimings = {};
    for (const [stage, ms] of Object.entries(this.spent)) out[stage] = Math.round(ms * 100) / 100;
    return out;
  }
}

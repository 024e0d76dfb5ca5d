import { Gauge, Histogram, Registry } from 'prom-client';

/** How a wait in an account's line ended: it got its slot, its wait ran past its deadline, its client left. */
export type LaneWaitOutcome = 'admitted' | 'refused' | 'gone';

/** Requests running and waiting in one lane, over every account of this gateway. */
export interface LaneCounts {
  running: number;
  waiting: number;
}

/**
 * The per-account lines on `/metrics` (docs/limits-and-security.md, "Rate limits and fairness"): how long requests
 * waited for a slot and how the wait ended, and how many run and wait now, by lane (`details.limit`'s name:
 * inflight, scans, large_searches, large_bodies). Not by account: the series would grow with the tenants; a lane
 * whose waits grow is where an operator looks next (the refusals, `muninn_refusals_total`, name the same lanes).
 */
export class LaneMetrics {
  private readonly waits = new Histogram({
    name: 'muninn_lane_wait_seconds',
    help: "Waits for one of an account's slots by lane (inflight, scans, large_searches, large_bodies) and outcome (admitted; refused: the wait ran past the request's deadline; gone: the client left while it waited); a request admitted at once, or refused at once with its line full (muninn_refusals_total), is not counted",
    labelNames: ['lane', 'outcome'],
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [],
  });
  private readonly now: Gauge;

  /** @param counts each lane's requests running and waiting now, over every account */
  constructor(counts: () => Record<string, LaneCounts>) {
    this.now = new Gauge({
      name: 'muninn_lane_requests',
      help: "Requests holding (running) or waiting for (waiting) one of their account's slots on this gateway, by lane",
      labelNames: ['lane', 'state'],
      registers: [],
      collect() {
        for (const [lane, { running, waiting }] of Object.entries(counts())) {
          this.set({ lane, state: 'running' }, running);
          this.set({ lane, state: 'waiting' }, waiting);
        }
      },
    });
  }

  /** One wait for a slot of `lane` that took `seconds` and ended as `outcome`. */
  waited(lane: string, outcome: LaneWaitOutcome, seconds: number): void {
    this.waits.observe({ lane, outcome }, seconds);
  }

  /** Serves these figures on the gateway's metrics registry. */
  registerOn(registry: Registry): void {
    registry.registerMetric(this.waits);
    registry.registerMetric(this.now);
  }
}

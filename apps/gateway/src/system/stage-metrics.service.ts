import { Injectable } from '@nestjs/common';
import { Histogram } from 'prom-client';
import type { StagesSummary } from '../context/request-stages';
import { MetricsService } from './metrics.service';

/**
 * Per-stage histograms of context requests (docs/architecture.md, "Stage timings"), on the process's
 * metrics registry: `stage` is a gateway stage (`auth`, `session_load`, `ledger_read`, `find`, `merge`,
 * `assemble`, `digest`, `ledger_write`, `total`) or a job's (`find_sql`, `assemble_body_read`, …), one
 * observation per job.
 */
@Injectable()
export class StageMetricsService {
  private readonly seconds: Histogram<'stage'>;

  constructor(metrics: MetricsService) {
    this.seconds = new Histogram({
      name: 'muninn_context_stage_duration_seconds',
      help: 'Time per stage of a context request; job stages (find_*, assemble_*) once per job',
      labelNames: ['stage'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [metrics.registry],
    });
  }

  observe(summary: StagesSummary): void {
    for (const [stage, ms] of Object.entries(summary.stages_ms)) this.seconds.observe({ stage }, ms / 1000);
    for (const job of summary.jobs) {
      for (const [stage, ms] of Object.entries(job.stages_ms)) {
        this.seconds.observe({ stage: `${job.queue}_${stage}` }, ms / 1000);
      }
    }
  }
}

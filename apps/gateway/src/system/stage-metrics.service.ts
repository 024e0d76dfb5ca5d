import { Injectable } from '@nestjs/common';
import { Histogram } from 'prom-client';
import type { StagesSummary } from '../http/request-stages';
import { MetricsService } from './metrics.service';

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Per-stage histograms (docs/architecture.md, "Stage timings"), on the process's metrics registry.
 * Context requests: `stage` is a gateway stage (`auth`, `session_load`, `ledger_read`, `find`, `merge`,
 * `assemble`, `digest`, `ledger_write`, `total`) or a job's (`find_sql`, `assemble_body_read`, …).
 * Content writes: `commit`, `enqueue`, `total`, and the index job's (`index_embed`, `index_sql`, …).
 * One observation per request and per job.
 */
@Injectable()
export class StageMetricsService {
  private readonly context: Histogram<'stage'>;
  private readonly write: Histogram<'stage'>;

  constructor(metrics: MetricsService) {
    this.context = new Histogram({
      name: 'muninn_context_stage_duration_seconds',
      help: 'Time per stage of a context request; job stages (find_*, assemble_*) once per job',
      labelNames: ['stage'],
      buckets: BUCKETS,
      registers: [metrics.registry],
    });
    this.write = new Histogram({
      name: 'muninn_write_stage_duration_seconds',
      help: 'Time per stage of a content write; index job stages (index_*) once per awaited job',
      labelNames: ['stage'],
      buckets: BUCKETS,
      registers: [metrics.registry],
    });
  }

  observe(summary: StagesSummary): void {
    record(this.context, summary);
  }

  observeWrite(summary: StagesSummary): void {
    record(this.write, summary);
  }
}

function record(h: Histogram<'stage'>, summary: StagesSummary): void {
  for (const [stage, ms] of Object.entries(summary.stages_ms)) h.observe({ stage }, ms / 1000);
  for (const job of summary.jobs) {
    for (const [stage, ms] of Object.entries(job.stages_ms)) h.observe({ stage: `${job.queue}_${stage}` }, ms / 1000);
  }
}

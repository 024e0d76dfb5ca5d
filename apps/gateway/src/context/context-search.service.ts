import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity } from '@app/kernel';
import { currentAuthMs } from '@app/queue';
import { StageMetricsService } from '../system/stage-metrics.service';
import { ContextParams } from './context-params';
import { ContextPipelineService } from './context-pipeline.service';
import { parseRecall, parseSearchContext } from './context-request.parser';
import { RequestStages } from '../http/request-stages';

/**
 * The whole success body of `/search`: the route answers raw so `telemetry` can sit beside `result`
 * (docs/contract.md#success-envelope).
 */
export interface SearchEnvelope {
  status: 'ok';
  result: unknown;
  telemetry?: unknown;
}

/**
 * `/search` with `mode="context"` (docs/contract.md#context-request) and the deprecated `/recall` preset
 * (docs/contract.md#recall-preset): parse, fold, run the
 * pipeline. The search controller sends every body in context mode or carrying a context-only field.
 */
@Injectable()
export class ContextSearchService {
  constructor(
    private readonly pipeline: ContextPipelineService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly stageMetrics: StageMetricsService,
  ) {}

  async search(caller: Identity, body: unknown): Promise<SearchEnvelope> {
    const params = await parseSearchContext(body, caller, new Date(), this.config.filter);
    return this.answer(caller, params, 'search.context');
  }

  async recall(caller: Identity, body: unknown): Promise<SearchEnvelope> {
    return this.answer(caller, await parseRecall(body, caller), 'search.recall');
  }

  private async answer(caller: Identity, params: ContextParams, operation: string): Promise<SearchEnvelope> {
    const started = process.hrtime.bigint();
    const stages = new RequestStages();
    const authMs = currentAuthMs();
    if (authMs !== undefined) stages.add('auth', authMs);
    const result = await this.pipeline.run(caller, params, stages);
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
    stages.add('total', durationMs);
    const summary = stages.summary();
    this.stageMetrics.observe(summary);
    if (!params.telemetry) return { status: 'ok', result };
    // The telemetry shape of /find and list mode, plus the stage times (docs/contract.md#success-envelope).
    const telemetry = { id: randomUUID(), summary: { operation, duration_ms: durationMs, ...summary } };
    return { status: 'ok', result, telemetry };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity } from '@app/kernel';
import { ContextParams } from './context-params';
import { ContextPipelineService } from './context-pipeline.service';
import { parseRecall, parseSearchContext } from './context-request.parser';
import { ImageInputService } from '../find/image-input.service';

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
    private readonly images: ImageInputService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  search(caller: Identity, body: Record<string, unknown>): Promise<SearchEnvelope> {
    return this.answer(caller, parseSearchContext(body, caller, new Date(), this.config.filter), 'search.context');
  }

  recall(caller: Identity, body: unknown): Promise<SearchEnvelope> {
    return this.answer(caller, parseRecall(body, caller), 'search.recall');
  }

  private async answer(caller: Identity, params: ContextParams, operation: string): Promise<SearchEnvelope> {
    const started = process.hrtime.bigint();
    // Checked and inlined once, as list mode does, before any fan-out: every find job gets the same bytes.
    const imageUrl = await this.images.inline(caller, params.imageUrl);
    const result = await this.pipeline.run(caller, { ...params, imageUrl });
    if (!params.telemetry) return { status: 'ok', result };
    // Same telemetry shape as /find and list mode.
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
    return { status: 'ok', result, telemetry: { id: randomUUID(), summary: { operation, duration_ms: durationMs } } };
  }
}

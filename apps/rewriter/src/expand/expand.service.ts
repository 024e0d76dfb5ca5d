import { Injectable, Logger } from '@nestjs/common';
import { ExpandJob, ExpandResult } from '@app/contracts';
import { LlmClient, LlmError } from '@app/llm';
import { FUSE_GRACE_MS, remainingBudget } from '../fuse/remaining-budget';
import { expandPrompt } from './expand-prompt';
import { parsePlannerQueries } from './planner-queries';

/**
 * Query expansion (docs/contract.md#query-expansion): asks the planner for extra queries. Failures throw {@link
 * LlmError}: the
 * gateway reports `query_expansion: "failed"` for any failed job, so there is no failure result.
 */
@Injectable()
export class ExpandService {
  private readonly logger = new Logger(ExpandService.name);

  constructor(private readonly llm: LlmClient) {}

  /** `withdrawn`: aborted when the gateway no longer waits (the model call is aborted with it). */
  async expand(job: ExpandJob, enqueuedAt?: number, withdrawn?: AbortSignal): Promise<ExpandResult> {
    const left = remainingBudget(job.timeoutMs, enqueuedAt);
    if (left <= 0) throw new LlmError('timeout', `expand job waited past its ${job.timeoutMs} ms fuse in the queue`);
    const { text, usage } = await this.llm.complete(expandPrompt(job), {
      timeoutMs: left + FUSE_GRACE_MS,
      model: 'planner',
      signal: withdrawn,
    });
    const queries = parsePlannerQueries(text);
    this.logger.debug(`planner proposed ${queries.length} queries`);
    return { queries, usage };
  }
}

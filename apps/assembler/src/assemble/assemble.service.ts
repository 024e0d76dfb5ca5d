import { Injectable } from '@nestjs/common';
import { AssembleJob, AssembleResult } from '@app/contracts';
import {
  entryToJson,
  normalizeDetail,
  perEntryCap,
  planContentReads,
  planEntries,
  renderContext,
  StageTimer,
} from '@app/kernel';
import { BodyReaderService } from './body-reader.service';

/**
 * Reads the bodies that can matter, plans tiers within the budget, renders (docs/contract.md#tiers-and-budget,
 * #rendered-block).
 */
@Injectable()
export class AssembleService {
  constructor(private readonly bodies: BodyReaderService) {}

  /** `timer`, when given, gets the `body_read`, `plan` and `render` stages. */
  async assemble(job: AssembleJob, timer = new StageTimer(() => 0)): Promise<AssembleResult> {
    const pins = normalizeDetail(job.detail);
    const cap = perEntryCap(job.maxTokens, Math.min(job.candidates.length, job.primary ?? job.candidates.length));
    const reads = planContentReads(job.candidates, cap, pins);
    const contents = await timer.time('body_read', () => this.bodies.read(job.identity, reads, job.candidates));
    const { entries, stats, explain } = await timer.time('plan', () =>
      planEntries({
        candidates: job.candidates,
        contents,
        maxTokens: job.maxTokens,
        pins,
        query: job.query,
        explain: job.explain === true,
        primary: job.primary,
      }),
    );
    const rendered = await timer.time('render', () => renderContext(entries));
    const bodiesRead = reads.length;
    return { entries: entries.map(entryToJson), rendered, plan: stats, bodiesRead, ...(explain ? { explain } : {}) };
  }
}

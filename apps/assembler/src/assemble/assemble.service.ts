import { Injectable } from '@nestjs/common';
import { AssembleJob, AssembleResult } from '@app/contracts';
import { assembleBlock, bodyReadChars, carriedBodies, planBlockReads, StageTimer } from '@app/kernel';
import { BodyReaderService } from './body-reader.service';

/**
 * Reads the bodies that can matter and the search did not carry, then plans tiers within the budget and renders
 * with the kernel's `assembleBlock` (docs/contract.md#tiers-and-budget, #rendered-block).
 */
@Injectable()
export class AssembleService {
  constructor(private readonly bodies: BodyReaderService) {}

  /** `timer`, when given, gets the `body_read`, `plan` and `render` stages. */
  async assemble(job: AssembleJob, timer = new StageTimer(() => 0)): Promise<AssembleResult> {
    const carried = carriedBodies(job);
    const reads = planBlockReads(job, carried);
    const known = [...job.candidates, ...(job.seen ?? []).map((s) => s.candidate)];
    const maxChars = bodyReadChars(job.maxTokens);
    const read = await timer.time('body_read', () => this.bodies.read(job.identity, reads, known, maxChars));
    const contents = new Map([...carried, ...read]);
    return { ...assembleBlock(job, contents, timer), bodiesRead: reads.length };
  }
}

import { Injectable } from '@nestjs/common';
import { AssembleJob, AssembleResult } from '@app/contracts';
import { assembleReading, bodyReadChars, StageTimer } from '@app/kernel';
import { BodyReaderService } from './body-reader.service';

/**
 * Reads the bodies that can matter and the search did not carry, then plans tiers within the budget and renders
 * with the kernel's `assembleReading` (docs/contract.md#tiers-and-budget, #rendered-block; docs/context.md,
 * "Bodies the search carries").
 */
@Injectable()
export class AssembleService {
  constructor(private readonly bodies: BodyReaderService) {}

  /** `timer`, when given, gets the `body_read`, `plan` and `render` stages. */
  async assemble(job: AssembleJob, timer = new StageTimer(() => 0)): Promise<AssembleResult> {
    const known = [...job.candidates, ...(job.seen ?? []).map((s) => s.candidate)];
    const maxChars = bodyReadChars(job.maxTokens);
    return assembleReading(job, (reads) => this.bodies.read(job.identity, reads, known, maxChars), timer);
  }
}

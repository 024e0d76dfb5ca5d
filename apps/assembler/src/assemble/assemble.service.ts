import { Injectable } from '@nestjs/common';
import { AssembleJob, AssembleResult } from '@app/contracts';
import { assembleReading, bodyReadChars, ContentRead, StageTimer } from '@app/kernel';
import { BodyReaderService } from './body-reader.service';
import { PlanThreads } from './plan-threads';

/**
 * Reads the bodies that can matter and the search did not carry, then plans tiers within the budget and renders
 * with the kernel's `assembleReading` (docs/contract.md#tiers-and-budget, #rendered-block; docs/context.md,
 * "Bodies the search carries").
 */
@Injectable()
export class AssembleService {
  constructor(
    private readonly bodies: BodyReaderService,
    private readonly threads: PlanThreads,
  ) {}

  /** `timer`, when given, gets the `body_read`, `plan` and `render` stages (and `plan_thread` for a large plan). */
  async assemble(job: AssembleJob, timer = new StageTimer(() => 0)): Promise<AssembleResult> {
    const known = [...job.candidates, ...(job.seen ?? []).map((s) => s.candidate)];
    const maxChars = bodyReadChars(job.maxTokens);
    const read = (reads: ContentRead[]) => this.bodies.read(job.identity, reads, known, maxChars);
    return assembleReading(job, read, timer, this.threads.planner(timer, job.identity.accountId));
  }
}

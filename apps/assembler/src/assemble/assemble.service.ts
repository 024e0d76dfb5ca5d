import { Injectable } from '@nestjs/common';
import { AssembleJob, AssembleResult } from '@app/contracts';
import { assembleBlock, planBlockReads } from '@app/kernel';
import { BodyReaderService } from './body-reader.service';

/**
 * Reads the bodies that can matter, then plans tiers within the budget and renders with the kernel's
 * `assembleBlock` (docs/contract.md#tiers-and-budget, #rendered-block).
 */
@Injectable()
export class AssembleService {
  constructor(private readonly bodies: BodyReaderService) {}

  async assemble(job: AssembleJob): Promise<AssembleResult> {
    const reads = planBlockReads(job);
    const contents = await this.bodies.read(job.identity, reads, job.candidates);
    return { ...assembleBlock(job, contents), bodiesRead: reads.length };
  }
}

import { performance } from 'node:perf_hooks';
import { BlockRequest, planBlock, PlannedBlock, StageTimer, StageTimings } from '@app/kernel';

/** What the assembler sends a plan thread: the block's request, the bodies it plans over, the bodies not read yet. */
export interface PlanTask {
  req: BlockRequest;
  contents: Map<string, string>;
  unread: string[];
}

/** What a plan thread answers: the plan, and its `plan` and `render` stages. */
export interface PlanAnswer {
  planned: PlannedBlock;
  stages: StageTimings;
}

/**
 * The body of a plan thread (apps/assembler/src/assemble/plan-threads.ts): the kernel's planBlock, the same
 * function the event loop runs for a small plan, so a block is the same wherever it was planned.
 */
export default function planOnThread({ req, contents, unread }: PlanTask): PlanAnswer {
  const timer = new StageTimer(() => performance.now());
  const planned = planBlock(req, contents, unread, timer);
  return { planned, stages: timer.timings() };
}

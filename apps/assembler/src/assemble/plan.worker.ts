import { performance } from 'node:perf_hooks';
import { BlockRequest, carriedBodies, planBlock, PlannedBlock, StageTimer, StageTimings } from '@app/kernel';

/**
 * What the assembler sends a plan thread: the block's request, the bodies it plans over in their order (`null`: the
 * body the search carried, the candidate's abstract, already in `req`: not copied twice), the bodies not read yet.
 */
export interface PlanTask {
  req: BlockRequest;
  bodies: [string, string | null][];
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
export default function planOnThread({ req, bodies, unread }: PlanTask): PlanAnswer {
  const timer = new StageTimer(() => performance.now());
  const carried = carriedBodies(req);
  const contents = new Map(bodies.map(([uri, text]) => [uri, text ?? carried.get(uri)!]));
  const planned = planBlock(req, contents, unread, timer);
  return { planned, stages: timer.timings() };
}

import { Redis } from 'ioredis';
import { QueueName } from '@app/contracts';
import { DEFAULT_FAIR_WEIGHTS, FairShare, fairShare, FairWeights } from './job-options';

/** BullMQ's lowest priority: the largest number it accepts (1 runs first). */
export const LOWEST_PRIORITY = 2_097_152;

// One round trip: the account's work in the current window, counted up by this job's weight. The window
// opens with the account's first job in it (the expiry is set only on a new count), so a count never
// outlives it and no finished job has to be counted down (a crash cannot leave a count wrong).
const COUNT_UP = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

/**
 * The fair order of the background queues (docs/limits-and-security.md, "Fair background queues"): a
 * job's priority is how much work its account has added to that queue in the window, this job
 * included. An account adding a little runs before the backlog of one adding a lot; within one
 * priority BullMQ keeps first in, first out.
 */
export class FairOrder {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly windowMs: number,
    private readonly weights: FairWeights = DEFAULT_FAIR_WEIGHTS,
  ) {}

  /** Whose work a job of `queue` is and how much, or null when the queue is first in, first out. */
  shareOf(queue: QueueName, payload: unknown): FairShare | null {
    return fairShare(queue, payload, this.weights);
  }

  async priority(queue: QueueName, share: FairShare): Promise<number> {
    const key = `${this.prefix}:fair:${queue}:${Buffer.from(share.account).toString('base64url')}`;
    const weight = Math.max(1, Math.round(share.weight));
    const count = Number(await this.redis.eval(COUNT_UP, 1, key, weight, this.windowMs));
    return Math.min(LOWEST_PRIORITY, Math.max(1, count));
  }
}

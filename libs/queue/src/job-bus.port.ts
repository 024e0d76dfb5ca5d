import { JobOf, JobPayloads, ResultOf } from '@app/contracts';

export type QueueKey = keyof JobPayloads;

/** How the gateway hands work to the workers: BullMQ on Redis, or in-process for single-process runs. */
export abstract class JobBus {
  /** Enqueues a job and returns without waiting (idempotent when `jobId` is given). */
  abstract enqueue<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts?: { jobId?: string }): Promise<void>;
  /** Enqueues a job and waits for its result, failing with DEADLINE_EXCEEDED after `timeoutMs`. */
  abstract call<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: { timeoutMs: number; jobId?: string }): Promise<ResultOf<Q>>;
  /** Waits for an already-enqueued job (by id) to finish, up to `timeoutMs`. */
  abstract waitFor<Q extends QueueKey>(queue: Q, jobId: string, timeoutMs: number): Promise<ResultOf<Q>>;
  /** Jobs waiting or running per queue (for /metrics and /health). */
  abstract depths(): Promise<Record<string, number>>;
}

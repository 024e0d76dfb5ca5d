import { JobOf, JobPayloads, ResultOf } from '@app/contracts';
import type { WithdrawalReceipt } from './withdrawal-receipt';

export type QueueKey = keyof JobPayloads;

/** Options of a fire-and-forget enqueue. */
export interface EnqueueOptions {
  /** Idempotent enqueue: adding an id that already exists is a no-op. */
  jobId?: string;
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
  /**
   * Coalesce with the job of the same key that has not started yet (this add is dropped); while one
   * runs, one more run follows it with the latest payload. At most one waiting and one running per key.
   */
  coalesceKey?: string;
  /** With `coalesceKey`: a job of the key still waiting out its delay is moved to this add's delay instead. */
  reschedule?: boolean;
}

/** Options of a call: a job whose result the caller waits for. */
export interface CallOptions {
  timeoutMs: number;
  /** Idempotent call: a job of this id already added is waited for instead of adding another. */
  jobId?: string;
  /**
   * The caller's own reason to stop waiting (a model circuit that opened). When it aborts, as when the
   * request's client goes away, the call rejects with its reason and withdraws the job: removed if no
   * worker has it, else aborted by its worker (docs/limits-and-security.md, "A client that goes away").
   */
  signal?: AbortSignal;
  /** Told how a withdrawal went: whether the job was taken back before any worker started it. */
  receipt?: WithdrawalReceipt;
}

/** How the gateway hands work to the workers: BullMQ on Redis, or in-process for single-process runs. */
export abstract class JobBus {
  /** Enqueues a job and returns without waiting. */
  abstract enqueue<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts?: EnqueueOptions): Promise<void>;
  /** Enqueues a job and waits for its result, failing with DEADLINE_EXCEEDED after `timeoutMs`. */
  abstract call<Q extends QueueKey>(queue: Q, data: JobOf<Q>, opts: CallOptions): Promise<ResultOf<Q>>;
  /** Waits for an already-enqueued job (by id) to finish, up to `timeoutMs`. */
  abstract waitFor<Q extends QueueKey>(queue: Q, jobId: string, timeoutMs: number): Promise<ResultOf<Q>>;
  /** Jobs waiting or running per queue (for /metrics and /health). */
  abstract depths(): Promise<Record<string, number>>;
  /** Consumers (workers) connected per queue, for readiness (docs/operations.md "Health and readiness"). */
  abstract consumers(): Promise<Record<string, number>>;
  /**
   * Why the job of this id failed for good, or null while it has not (waiting, running, retried, done,
   * or gone). For relays that must see a job failed outside its processor: BullMQ fails a job whose
   * workers died under it more often than its stall limit without running any of our code.
   */
  abstract failure(queue: QueueKey, jobId: string): Promise<string | null>;
}

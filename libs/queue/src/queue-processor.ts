import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { Job, UnrecoverableError } from 'bullmq';
import { JobMeta, JobOf, jobFailureMessage, MAX_FIND_BATCH, ResultOf } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { ConsumerHost, hasRetryLeft } from './consumer';
import { FinalJobFailure } from './final-job-failure';
import { JobDeferred } from './job-deferral';
import { isRequestScoped } from './job-options';
import { QueueKey } from './job-bus.port';

const CALLER_MISTAKES: ReadonlySet<string> = new Set([
  KernelErrorCode.InvalidArgument,
  KernelErrorCode.InvalidUri,
  KernelErrorCode.NotFound,
  KernelErrorCode.PermissionDenied,
]);

/**
 * Listeners a job's signal may hold at once before Node warns of a leak. Every statement, model call and wait of
 * the job's work listens on it while it runs, and they run together: a find batch of {@link MAX_FIND_BATCH}
 * calls has a search statement and a client-gone wait per call, and on the embedded store every statement waits
 * in its one connection's queue. Node's default of 10 printed "Possible EventTarget memory leak detected" for a
 * valid context request with six quota buckets (each listener is removed when its wait ends).
 */
export const JOB_SIGNAL_LISTENERS = 4 * MAX_FIND_BATCH;

/** What a processor may know about the job it runs besides the payload. */
export interface JobRun {
  id?: string;
  /** When the job was added (epoch ms); the rewriter spends only what is left of its budget. */
  enqueuedAt?: number;
  /** Attempts of this job that failed before this one (0 for a first attempt, or in-process). */
  attemptsMade?: number;
  /**
   * Aborted when the job's caller withdraws it (docs/limits-and-security.md, "A client that goes away"):
   * request-scoped jobs only. It is also the job's work context's abandon signal.
   */
  signal?: AbortSignal;
  meta: JobMeta;
}

/**
 * The one shape of every queue processor (docs/operations.md "Queue processors"): strip the job's
 * meta, drop a request-scoped job whose deadline has passed, validate the payload, run the service
 * inside the job's work context (its request id), and turn any failure into a coded job failure.
 * Each failure is logged once, here; subclasses neither catch nor log.
 *
 * Failures of request-scoped queues are final (nobody waits for a retry); those of durable queues
 * (index, sidecar) stay retryable, except a malformed payload, which can never succeed, and a
 * {@link FinalJobFailure} (the work decided that no retry can mend it).
 *
 * Every attempt's outcome (processed, retried, failed with its message) is counted here, once, for
 * `system/wait` (docs/fs-and-mcp.md, "system/wait"); counting never delays or changes the job.
 */
export abstract class QueueProcessor<Q extends QueueKey> extends ConsumerHost {
  protected readonly log: Logger;

  protected constructor(protected readonly queue: Q) {
    super();
    this.log = new Logger(`${queue}-processor`);
  }

  /** Structural check of the payload; anything else is a producer bug. */
  protected abstract isPayload(data: unknown): data is JobOf<Q>;

  /** The work itself. */
  protected abstract run(data: JobOf<Q>, job: JobRun): Promise<ResultOf<Q>>;

  /**
   * Failures of this worker's dependencies that have a wire code (an embedder or LLM outage), as the
   * domain error they stand for; null for anything unexpected. Kernel errors are coded already.
   */
  protected codeOf(_err: unknown): KernelError | null {
    return null;
  }

  /**
   * How long to put the job back for when `err` means it cannot run yet rather than that it failed (a
   * durable queue's processor names such errors: the indexer's TenantBusy); null for a failure.
   */
  protected deferralOf(_err: unknown): number | null {
    return null;
  }

  // Three declared parameters: BullMQ hands a processor that takes them the job's abort signal (Worker.cancelJob).
  async process(job: Job, token?: string, signal?: AbortSignal) {
    const run = { id: job.id, enqueuedAt: job.timestamp, attemptsMade: job.attemptsMade, signal };
    return this.putBackOnDeferral(job, token, () => this.handle(job.data, run, hasRetryLeft(job)));
  }

  /**
   * Runs one attempt. `retryable`: whether the transport runs the job again if this attempt fails
   * (BullMQ with attempts left); the in-process bus never retries.
   */
  async handle(raw: unknown, job: Omit<JobRun, 'meta'> = {}, retryable = false): Promise<ResultOf<Q>> {
    if (job.signal) setMaxListeners(JOB_SIGNAL_LISTENERS, job.signal);
    return this.counted(this.queue, raw, retryable, () =>
      this.inJobContext(this.queue, raw, job.id, (data, meta) => this.guarded(data, { ...job, meta }), job.signal),
    );
  }

  private async guarded(data: unknown, job: JobRun): Promise<ResultOf<Q>> {
    const late = job.meta.deadlineAt === undefined ? 0 : Date.now() - job.meta.deadlineAt;
    if (late > 0) {
      this.noteDropped(late);
      const message = `${this.queue} job dropped after its deadline`;
      throw new UnrecoverableError(jobFailureMessage(KernelErrorCode.DeadlineExceeded, message));
    }
    if (!this.isPayload(data)) {
      this.log.error(`malformed ${this.queue} job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
      // A payload this worker cannot read is a fault between our own processes, never the caller's
      // mistake: INTERNAL, so a context request reports it as a retrieval error instead of a 400.
      throw new UnrecoverableError(jobFailureMessage(KernelErrorCode.Internal, `malformed ${this.queue} job payload`));
    }
    this.log.debug(`${this.queue} ${job.id ?? ''}`);
    try {
      return await this.run(data, job);
    } catch (err) {
      if (job.signal?.aborted) throw this.withdrawn();
      const delayMs = isRequestScoped(this.queue) ? null : this.deferralOf(err);
      if (delayMs === null) throw this.failure(err);
      this.log.debug(`${this.queue} ${job.id ?? ''} put back for ${delayMs} ms: ${(err as Error).message}`);
      throw new JobDeferred(delayMs, (err as Error).message);
    }
  }

  private dropped = 0;
  private droppedLoggedAt = 0;

  // After a crash a backlog of stale jobs drains in one burst: one line per 10 s, with a count.
  private noteDropped(lateMs: number): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.droppedLoggedAt < 10_000) return;
    const n = this.dropped;
    this.log.warn(`dropped ${n} ${this.queue} job(s) past their request's deadline (latest ${lateMs} ms late)`);
    this.dropped = 0;
    this.droppedLoggedAt = now;
  }

  /**
   * The failure of a job its caller withdrew while it ran (its client went away, or its circuit let the call
   * go): nobody reads it, so it is logged at debug only, whatever the work failed with once aborted.
   */
  private withdrawn(): Error {
    this.log.debug(`${this.queue} job withdrawn by its caller; stopped`);
    return new UnrecoverableError(
      jobFailureMessage(KernelErrorCode.DeadlineExceeded, `${this.queue} job withdrawn: its caller stopped waiting`),
    );
  }

  private failure(err: unknown): Error {
    const message = this.failureMessage(err);
    const final = isRequestScoped(this.queue) || err instanceof FinalJobFailure;
    return final ? new UnrecoverableError(message) : new Error(message);
  }

  /**
   * The coded message of a failure (libs/contracts job-failure), logged once here: what a job fails
   * with, and what a batch job reports for one failed part of it.
   */
  protected failureMessage(err: unknown): string {
    const coded = err instanceof KernelError ? err : this.codeOf(err);
    let message: string;
    if (coded) {
      // The caller gets the code and message (a 400 or 503); the worker's log needs no more than a
      // line, and a caller's own mistakes only at debug (a hostile tenant must not flood the log).
      message = jobFailureMessage(coded.code, coded.message);
      if (CALLER_MISTAKES.has(coded.code)) this.log.debug(`${this.queue} job refused: ${message}`);
      else this.log.warn(`${this.queue} job failed: ${message}`);
    } else {
      // Anything else (a database error, a bug) is logged here in full; its text never reaches the caller.
      const errorId = randomUUID();
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      this.log.error(`${this.queue} job failed, errorId=${errorId}: ${detail}`);
      message = jobFailureMessage(KernelErrorCode.Internal, `${this.queue} failed (error id ${errorId})`);
    }
    return message;
  }
}

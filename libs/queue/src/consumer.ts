import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional, Provider, Type } from '@nestjs/common';
import { WorkerHost } from '@nestjs/bullmq';
import { randomUUID } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { APP_CONFIG, AppConfig } from '@app/config';
import { DelayedError, Job, UnrecoverableError } from 'bullmq';
import { JobMeta, QueueName, splitJobMeta } from '@app/contracts';
import { runInWorkContext } from './job-context';
import { inSpan } from './tracing';
import { InProcessJobBus } from './in-process-job-bus';
import { JobDeferred } from './job-deferral';
import { isRequestScoped } from './job-options';
import { JobWithdrawals } from './job-withdrawals';
import { watchRedisClient } from './redis-error-log';
import { FailureNote, JobOutcome, QueueActivity } from './queue-activity';

/** What every processor exposes: the job handler, callable by BullMQ or by the in-process bus. */
export interface JobHandler {
  /** `run.signal`: aborted when the job's caller withdraws it (request-scoped jobs; in-process bus). */
  handle(data: unknown, run?: { signal?: AbortSignal }): Promise<unknown>;
}

/**
 * Base of queue processors: sets concurrency from config (never from a decorator reading env), and
 * counts every attempt's outcome for `system/wait` (docs/fs-and-mcp.md, "system/wait").
 */
@Injectable()
export abstract class ConsumerHost extends WorkerHost implements JobHandler, OnApplicationBootstrap {
  @Inject(APP_CONFIG) protected readonly config!: AppConfig;
  // Absent only where a processor is built by hand (unit specs): then nothing is counted.
  @Optional() @Inject(QueueActivity) private readonly activity?: QueueActivity;
  // Null with the in-process transport (its bus aborts a withdrawn job's signal itself).
  @Optional() @Inject(JobWithdrawals) private readonly withdrawals?: JobWithdrawals | null;

  abstract handle(data: unknown, run?: { signal?: AbortSignal }): Promise<unknown>;

  onApplicationBootstrap() {
    // In in-process mode BullMQ never creates a worker (and the getter would throw).
    if (this.config.queues.transport !== 'bullmq') return;
    this.worker.concurrency = this.config.queues.workerConcurrency;
    // Without a listener BullMQ prints every error of an outage to the console, unthrottled.
    watchRedisClient(this.worker, `worker ${this.worker.name}`);
    // Only a request-scoped job is ever withdrawn (its caller stopped waiting); durable work runs to its end.
    if (isRequestScoped(this.worker.name as QueueName)) this.withdrawals?.watch(this.worker);
  }

  /**
   * BullMQ's side of a {@link JobDeferred}: the job goes back to the delayed set with its attempts and
   * priority untouched, and the worker takes other work (BullMQ's `DelayedError` tells it the job moved).
   */
  protected async putBackOnDeferral<T>(job: Job, token: string | undefined, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof JobDeferred) || token === undefined) throw err;
      await job.moveToDelayed(Date.now() + err.delayMs, token);
      throw new DelayedError(err.message);
    }
  }

  /**
   * Runs one attempt of a job of `queue` and records its outcome: processed, or failed (for good when
   * the transport will not run it again: `retryable` false or an UnrecoverableError), else retried.
   * Recording never delays, fails or changes the job. `data` is the payload, read only for its
   * `accountId` (who may see the failure's message).
   */
  protected async counted<T>(
    queue: QueueName,
    data: unknown,
    retryable: boolean,
    attempt: () => Promise<T> | T,
  ): Promise<T> {
    try {
      const result = await attempt();
      this.count(queue, 'processed');
      return result;
    } catch (err) {
      // Put back, not failed: the attempt it was is not one (see JobDeferred).
      if (err instanceof JobDeferred) throw err;
      const final = !retryable || err instanceof UnrecoverableError;
      const message = err instanceof Error ? err.message : String(err);
      const account = (data as { accountId?: unknown } | null)?.accountId;
      this.count(queue, final ? 'failed' : 'retried', {
        message,
        account: typeof account === 'string' ? account : null,
      });
      throw err;
    }
  }

  /**
   * Runs `work` on the payload without its meta, inside the job's request id (every log line and every
   * job the work adds carries it) and a consumer span under the producer's trace (docs/operations.md,
   * "Request ids and deadlines"). `withdrawn`, the job's abort signal, is the work's abandon signal: what
   * stops when nobody waits for the answer stops for it too.
   */
  protected inJobContext<T>(
    queue: QueueName,
    raw: unknown,
    jobId: string | undefined,
    work: (data: unknown, meta: JobMeta) => Promise<T>,
    withdrawn?: AbortSignal,
  ): Promise<T> {
    const { data, meta } = splitJobMeta(raw);
    const requestId = meta.requestId ?? `job-${jobId ?? randomUUID()}`;
    const accountId = meta.accountId ?? accountOf(data);
    const span = `${queue} process`;
    return runInWorkContext({ requestId, abandoned: withdrawn, accountId }, () =>
      inSpan(span, SpanKind.CONSUMER, () => work(data, meta), meta.traceparent),
    );
  }

  private count(queue: QueueName, outcome: JobOutcome, failure?: FailureNote): void {
    try {
      this.activity?.record(queue, outcome, failure);
    } catch (err) {
      // record() never throws by contract; this guard keeps a bug there from failing the job.
      new Logger('QueueActivity').warn(`not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Whether BullMQ runs `job` again if this attempt fails (attemptsMade counts earlier failed attempts). */
export function hasRetryLeft(job: Job): boolean {
  return (job.opts.attempts ?? 1) - job.attemptsMade - 1 > 0;
}

/** Registers `processor` as the in-process consumer of `queue` when that transport is active. */
export function inProcessConsumer(queue: QueueName, processor: Type<JobHandler>): Provider {
  const token = `inprocess-consumer:${queue}`;
  return {
    provide: token,
    inject: [processor, { token: InProcessJobBus, optional: true }],
    useFactory: (handler: JobHandler, bus: InProcessJobBus | null) => {
      bus?.register(queue, (d, signal) => handler.handle(d, { signal }));
      return true;
    },
  };
}

/**
 * The account a payload names (`accountId`, or its `identity`'s): a job added outside any request (a relay's,
 * a coalesced sidecar's) has no account in its meta, and its work still runs as its account's.
 */
function accountOf(data: unknown): string | undefined {
  const d = data as { accountId?: unknown; identity?: { accountId?: unknown } } | null;
  const id = d?.accountId ?? d?.identity?.accountId;
  return typeof id === 'string' ? id : undefined;
}

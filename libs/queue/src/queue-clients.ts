import { Injectable } from '@nestjs/common';
import { FindBatchResult, FindJob, FindResult, JobOf, QueueName, ResultOf } from '@app/contracts';
import { enqueueIndex } from './index-queue';
import { CallOptions, EnqueueOptions, JobBus, QueueKey } from './job-bus.port';

/**
 * A typed client of one queue: what a producer injects instead of the generic {@link JobBus}
 * (docs/operations.md "Queue processors"). Failures come back decoded by the bus, as the
 * {@link KernelError} the worker reported, so no caller parses failure messages.
 */
export abstract class QueueClient<Q extends QueueKey> {
  protected constructor(
    protected readonly bus: JobBus,
    readonly queue: Q,
  ) {}
}

/** Request-scoped queues: enqueue and wait for the result under the request's deadline. */
abstract class RequestClient<Q extends QueueKey> extends QueueClient<Q> {
  /**
   * Runs one job and waits up to `timeoutMs`; past it: DEADLINE_EXCEEDED, and the job is withdrawn.
   * `signal` (a circuit's cut) stops the wait and withdraws the job, as a client that goes away does;
   * `receipt` learns whether a withdrawn job was taken back before any worker started it.
   */
  call(data: JobOf<Q>, timeoutMs: number, opts: Pick<CallOptions, 'signal' | 'receipt'> = {}): Promise<ResultOf<Q>> {
    return this.bus.call(this.queue, data, { timeoutMs: jobTimeout(timeoutMs), ...opts });
  }
}

const jobTimeout = (ms: number) => Math.max(1, Math.round(ms));

/** The find queue: one call (/find, list mode), or every call of a context request in one job. */
@Injectable()
export class FindClient extends QueueClient<QueueName.Find> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Find);
  }

  /** Runs one call and waits up to `timeoutMs`; past it: DEADLINE_EXCEEDED, and the worker drops the job. */
  async call(data: FindJob, timeoutMs: number): Promise<FindResult> {
    return (await this.bus.call(this.queue, data, { timeoutMs: jobTimeout(timeoutMs) })) as FindResult;
  }

  /** Runs `calls` in one job; one outcome per call, in order (a call's failure is its own). */
  async batch(calls: FindJob[], timeoutMs: number): Promise<FindBatchResult> {
    return (await this.bus.call(this.queue, { calls }, { timeoutMs: jobTimeout(timeoutMs) })) as FindBatchResult;
  }
}

@Injectable()
export class AssembleClient extends RequestClient<QueueName.Assemble> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Assemble);
  }
}

@Injectable()
export class ExpandClient extends RequestClient<QueueName.Expand> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Expand);
  }
}

@Injectable()
export class DigestClient extends RequestClient<QueueName.Digest> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Digest);
  }
}

@Injectable()
export class ScanClient extends RequestClient<QueueName.Scan> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Scan);
  }
}

/** The durable index queue: one job per outbox entry, under its deterministic id. */
@Injectable()
export class IndexClient extends QueueClient<QueueName.Index> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Index);
  }

  /** Adds the job of an outbox entry (a no-op when that id is already queued); returns its id. */
  enqueue(job: JobOf<QueueName.Index>): Promise<string> {
    return enqueueIndex(this.bus, job);
  }

  /** Waits for an added index job, up to `timeoutMs`. */
  waitFor(jobId: string, timeoutMs: number): Promise<ResultOf<QueueName.Index>> {
    return this.bus.waitFor(this.queue, jobId, timeoutMs);
  }
}

/** Coalesced, optionally delayed directory-summary refreshes. */
@Injectable()
export class SidecarClient extends QueueClient<QueueName.Sidecar> {
  constructor(bus: JobBus) {
    super(bus, QueueName.Sidecar);
  }

  enqueue(job: JobOf<QueueName.Sidecar>, opts: Pick<EnqueueOptions, 'coalesceKey' | 'delayMs'>): Promise<void> {
    return this.bus.enqueue(this.queue, job, opts);
  }
}

/** Every typed client, for the queue module to provide. */
export const QUEUE_CLIENTS = [
  FindClient,
  AssembleClient,
  ExpandClient,
  DigestClient,
  ScanClient,
  IndexClient,
  SidecarClient,
];

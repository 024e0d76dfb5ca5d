import { AsyncLocalStorage } from 'node:async_hooks';
import { JOB_META_KEY, JobMeta } from '@app/contracts';
import { KernelError, KernelErrorCode, untilAborted } from '@app/kernel';

/** What one unit of work (an HTTP request, or a job) carries implicitly through its async calls. */
export interface WorkContext {
  requestId: string;
  /** An HTTP request's authentication time in ms, for its stage timings (docs/architecture.md, "Stage timings"). */
  authMs?: number;
  /**
   * Aborted when nobody will read the answer: an HTTP request's client went away before it was sent, or a
   * request-scoped job was withdrawn by its caller (docs/limits-and-security.md, "A client that goes away").
   */
  abandoned?: AbortSignal;
  /** The account the work is for: an HTTP request's once authenticated, a job's (from its meta or payload). */
  accountId?: string;
}

const storage = new AsyncLocalStorage<WorkContext>();

/** Runs `fn` with `ctx` as the current work context (the gateway per request, workers per job). */
export function runInWorkContext<T>(ctx: WorkContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The request id of the work in progress, if any: the job buses copy it into every job they add. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The account of the work in progress, if known (the store's statement lanes: `WORK_ACCOUNT`). */
export function currentAccountId(): string | undefined {
  return storage.getStore()?.accountId;
}

/** How long the current HTTP request's authentication took (ms), if it was timed. */
export function currentAuthMs(): number | undefined {
  return storage.getStore()?.authMs;
}

/**
 * What a request's work stops with once its client has gone away (docs/limits-and-security.md, "A client
 * that goes away"): nobody reads the answer. Coded as a deadline (the request ended before its answer), and
 * told apart by its reason: a model circuit does not count it as the provider's failure.
 */
export function clientGone(): KernelError {
  return new KernelError(KernelErrorCode.DeadlineExceeded, 'the client went away before the answer', {
    reason: 'client_gone',
  });
}

export function isClientGone(err: unknown): boolean {
  return err instanceof KernelError && err.details?.reason === 'client_gone';
}

/**
 * Runs `fn` in the current work context with `signal` as its abandon signal: one read of a request that
 * carries both reads and writes (an MCP tool call), which stops when that request's client goes away.
 */
export function whileClientStays<T>(signal: AbortSignal, fn: () => T): T {
  const ctx = storage.getStore();
  return ctx ? storage.run({ ...ctx, abandoned: signal }, fn) : fn();
}

/** The current work's abandon signal, if it can be abandoned: a wait outside any job (a lane's line) listens on it. */
export function currentAbandonSignal(): AbortSignal | undefined {
  return storage.getStore()?.abandoned;
}

/** Throws {@link clientGone} if the current request's client has gone away. */
export function throwIfClientGone(): void {
  if (storage.getStore()?.abandoned?.aborted) throw clientGone();
}

/**
 * `p`, or {@link clientGone} as soon as the current work's client goes away (then `onGone` runs: say, take
 * back a job no worker has started); outside a request or job that can be abandoned, `p` itself.
 */
export function unlessClientGone<T>(p: Promise<T>, onGone: () => void = () => undefined): Promise<T> {
  const signal = storage.getStore()?.abandoned;
  if (!signal) return p;
  return untilAborted(p, signal, () => {
    onGone();
    return clientGone();
  });
}

/**
 * `p` while its answer is wanted: {@link clientGone} once the current work's client goes away, or `signal`'s
 * reason once it aborts (a circuit that let the call go); either way `withdraw` runs, once.
 */
export function whileWanted<T>(p: Promise<T>, signal: AbortSignal | undefined, withdraw: () => void): Promise<T> {
  let withdrawn = false;
  const once = () => {
    if (withdrawn) return;
    withdrawn = true;
    withdraw();
  };
  const waited = signal
    ? untilAborted(p, signal, () => {
        once();
        return signal.reason instanceof Error ? signal.reason : new Error('the caller stopped waiting');
      })
    : p;
  return unlessClientGone(waited, once);
}

let traceparentSource: () => string | undefined = () => undefined;

/** Lets tracing (when on) say which span a job being added belongs to; off: no traceparent. */
export function setTraceparentSource(source: () => string | undefined): void {
  traceparentSource = source;
}

/** The meta a job added now carries: the current request id, trace parent and, if given, a deadline. */
export function currentJobMeta(deadlineAt?: number): JobMeta {
  const meta: JobMeta = {};
  const requestId = currentRequestId();
  if (requestId) meta.requestId = requestId;
  const accountId = currentAccountId();
  if (accountId) meta.accountId = accountId;
  const traceparent = traceparentSource();
  if (traceparent) meta.traceparent = traceparent;
  if (deadlineAt !== undefined) meta.deadlineAt = deadlineAt;
  return meta;
}

/** The payload as stored in the queue: the typed data plus its meta under {@link JOB_META_KEY}. */
export function withJobMeta(data: unknown, meta: JobMeta): unknown {
  return Object.keys(meta).length === 0 ? data : { ...(data as object), [JOB_META_KEY]: meta };
}

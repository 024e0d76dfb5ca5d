import { AsyncLocalStorage } from 'node:async_hooks';
import { JOB_META_KEY, JobMeta } from '@app/contracts';

/** What one unit of work (an HTTP request, or a job) carries implicitly through its async calls. */
export interface WorkContext {
  requestId: string;
  /** An HTTP request's authentication time in ms, for its stage timings (docs/architecture.md, "Stage timings"). */
  authMs?: number;
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

/** How long the current HTTP request's authentication took (ms), if it was timed. */
export function currentAuthMs(): number | undefined {
  return storage.getStore()?.authMs;
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
  const traceparent = traceparentSource();
  if (traceparent) meta.traceparent = traceparent;
  if (deadlineAt !== undefined) meta.deadlineAt = deadlineAt;
  return meta;
}

/** The payload as stored in the queue: the typed data plus its meta under {@link JOB_META_KEY}. */
export function withJobMeta(data: unknown, meta: JobMeta): unknown {
  return Object.keys(meta).length === 0 ? data : { ...(data as object), [JOB_META_KEY]: meta };
}

import { JobsOptions, WorkerOptions } from 'bullmq';
import { ExtractJob, IndexJob, QueueName, SidecarJob } from '@app/contracts';

/**
 * Job options per queue, decided here only. Completed jobs are kept briefly (not removed at once):
 * removing them immediately races `waitUntilFinished`, which looks the job up once it listens, and loses results.
 */
export function jobOptions(queue: QueueName): JobsOptions {
  const keep = { removeOnComplete: { age: 120, count: 5000 }, removeOnFail: { age: 24 * 3600, count: 5000 } };
  // Request-path jobs are awaited under a deadline; a retry after the deadline helps nobody. Their
  // results (find hits, grep lines) went back to a waiter seconds ago: kept 10 s, not 120 s, since a
  // tenant's large results held Redis memory (docs/limits-and-security.md, "Work per byte").
  if (isRequestPath(queue)) return { ...keep, removeOnComplete: { age: 10, count: 1000 }, attempts: 1 };
  switch (queue) {
    // A failed index job is removed: its outbox entry stays, and the relay must be able to add the
    // same job id again later (an id still held by a failed job would make that add a no-op).
    case QueueName.Index:
      return { ...keep, removeOnFail: true, attempts: 5, backoff: { type: 'exponential', delay: 500 } };
    // Nobody waits for a sidecar job; the store's sidecar_due mark is what makes it durable.
    case QueueName.Sidecar:
      return { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 500 } };
    // A commit's extraction is retried (a worker killed mid-job, a predecessor still running, a provider
    // failing for a while); the task id is the job id, and the job is idempotent, so a retry never
    // duplicates a memory.
    case QueueName.Extract:
      return {
        removeOnComplete: { age: 3600, count: 5000 },
        removeOnFail: { age: 24 * 3600, count: 5000 },
        attempts: 6,
        backoff: { type: EXTRACT_BACKOFF, delay: 1000 },
      };
    // Each run re-reads the session and decides again, so a lost or failed idle job only delays a commit.
    case QueueName.SessionIdle:
      return { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1000 } };
  }
}

/** The extract queue's backoff: the extractor's processor registers {@link extractBackoff} under this name. */
export const EXTRACT_BACKOFF = 'extract';

/**
 * How long a failed extract attempt waits before the next: what the attempt's error asks for (the
 * extractor's `ModelRetryLater` carries `retryDelayMs`: its configured wait, or the provider's longer
 * `Retry-After`; docs/sessions.md "A provider that fails for a while"), else 1 s doubled per attempt as
 * before. BullMQ calls it with the attempts made, this one included.
 */
export function extractBackoff(attemptsMade: number, _type?: string, err?: Error): number {
  const asked = (err as { retryDelayMs?: unknown } | undefined)?.retryDelayMs;
  if (typeof asked === 'number' && Number.isFinite(asked) && asked >= 0) return Math.round(asked);
  return Math.round(2 ** Math.max(0, attemptsMade - 1) * 1000);
}

/** Whose work a background job is, and how much of it, for its queue's fair order. */
export interface FairShare {
  account: string;
  weight: number;
}

/** How the fair order weighs work that is not counted in files. */
export interface FairWeights {
  /** Archived tokens per unit of a commit's weight; 0: every commit weighs one. */
  extractTokens: number;
}

/** The default weights: a commit weighs one per started 4,000 archived tokens. */
export const DEFAULT_FAIR_WEIGHTS: FairWeights = { extractTokens: 4000 };

/**
 * The account and weight a job counts under in its queue's fair order (docs/limits-and-security.md,
 * "Fair background queues"), or null for a queue served first in, first out: request-path queues
 * (each tenant's requests are already bounded at the gateway) and idle commits (a short read each; the
 * commit one makes is an extract job, which is fair).
 */
export function fairShare(
  queue: QueueName,
  payload: unknown,
  weights: FairWeights = DEFAULT_FAIR_WEIGHTS,
): FairShare | null {
  if (isRequestPath(queue)) return null;
  switch (queue) {
    // A write of many files (a batch, a moved subtree) is as much work as that many single writes.
    case QueueName.Index: {
      const job = payload as IndexJob;
      return { account: job.accountId, weight: Math.max(1, job.uris.length) };
    }
    case QueueName.Sidecar:
      return { account: (payload as SidecarJob).accountId, weight: 1 };
    // An extraction reads its whole archive (the model is sent all of it, a window per call; docs/sessions.md
    // "Extraction"), so a commit of 400,000 tokens is as much work as a hundred commits of a few turns.
    case QueueName.Extract: {
      const job = payload as ExtractJob;
      return { account: job.accountId, weight: extractWeight(job.archivedTokens, weights.extractTokens) };
    }
    case QueueName.SessionIdle:
      return null;
  }
}

/** A commit's weight: one per started `tokensPerUnit` archived tokens, at least one (0: always one). */
export function extractWeight(archivedTokens: number | undefined, tokensPerUnit: number): number {
  if (!(tokensPerUnit > 0)) return 1;
  const tokens = Number.isFinite(archivedTokens) ? Math.max(0, archivedTokens as number) : 0;
  return Math.max(1, Math.ceil(tokens / tokensPerUnit));
}

const REQUEST_SCOPED: ReadonlySet<QueueName> = new Set([
  QueueName.Find,
  QueueName.Scan,
  QueueName.Assemble,
  QueueName.Expand,
  QueueName.Digest,
]);

/**
 * Whether jobs of `queue` serve one waiting request (and carry its deadline) rather than durable work.
 * Request-scoped failures are final; durable ones (index, sidecar) are retried and idempotent.
 */
export function isRequestScoped(queue: QueueName): boolean {
  return REQUEST_SCOPED.has(queue);
}

/**
 * Worker options of request-scoped queues: a job whose worker died (stalled) fails instead of being
 * run again, because its request has been answered or has failed by then (docs/operations.md
 * "Request ids and deadlines"). Waiting jobs that outlive their deadline are dropped by the
 * processor base.
 */
export const REQUEST_WORKER_OPTIONS: Pick<WorkerOptions, 'maxStalledCount' | 'lockDuration' | 'stalledInterval'> = {
  maxStalledCount: 0,
  // Request jobs are short (the lock is renewed every half period while one runs), so a dead
  // worker's jobs are noticed within about 15 s instead of BullMQ's default minute.
  lockDuration: 10_000,
  stalledInterval: 5_000,
};

/**
 * Worker options of durable queues (index, sidecar, extraction, session commits): a job whose worker died
 * is handed to another worker once its lock lapses. BullMQ's defaults (a 30 s lock, a stalled check every
 * 30 s) left such a job untouched for up to a minute; a 15 s lock renewed every 7.5 s and a check every
 * 5 s take it up within about 20 s. The jobs are idempotent, so a worker whose loop was held past its lock
 * (nothing on these queues holds it that long) costs a repeat, not a wrong result; a job that stalls a
 * second time fails, as by default (a job that kills its worker does not take the next one down too).
 */
export const DURABLE_WORKER_OPTIONS: Pick<WorkerOptions, 'maxStalledCount' | 'lockDuration' | 'stalledInterval'> = {
  maxStalledCount: 1,
  lockDuration: 15_000,
  stalledInterval: 5_000,
};

/** Coalescing key of a session's idle-commit job: at most one waiting per session. */
export function sessionIdleKey(job: { accountId: string; userId: string; sessionId: string }): string {
  return `idle-${Buffer.from(`${job.accountId}\u0000${job.userId}\u0000${job.sessionId}`).toString('base64url')}`;
}

/**
 * Deterministic id of the index job of one outbox entry: the gateway's enqueue right after the commit
 * and any later re-enqueue by the relay name the same job, so a duplicate add is a no-op. The entry's
 * creation stamp is part of it: a new store (a wiped data folder, a new database) numbers its entries
 * from 1 again, and finished jobs of the old one, still kept in Redis under the bare ids, turned every
 * add into a no-op (docs/architecture.md, "Write path"). Jobs enqueued before the stamp keep the old form.
 */
export function indexJobId(job: Pick<IndexJob, 'accountId' | 'outboxId' | 'stamp'>): string {
  const id = `idx-${Buffer.from(job.accountId).toString('base64url')}-${job.outboxId}`;
  return job.stamp ? `${id}-${job.stamp}` : id;
}

/** Coalescing key of a directory's sidecar job: at most one waiting (and one running) per directory. */
export function sidecarKey(accountId: string, uri: string): string {
  return `sc-${Buffer.from(`${accountId}\u0000${uri}`).toString('base64url')}`;
}

/**
 * Entries kept in a queue's event stream (BullMQ's default is 10,000). Each `completed` event carries the
 * job's result, so on request-path queues, whose results are consumed as they arrive, the stream keeps
 * 2,000 entries (a few hundred jobs) instead of the last 2,000 jobs' results.
 */
export function eventStreamLength(queue: QueueName): number {
  return isRequestPath(queue) ? 2000 : 10000;
}

/** Queues whose jobs answer a waiting request (one list for their retention and their event stream). */
const REQUEST_PATH = [
  QueueName.Find,
  QueueName.Scan,
  QueueName.SessionExtract,
  QueueName.Assemble,
  QueueName.Expand,
  QueueName.Digest,
] as const;

function isRequestPath(queue: QueueName): queue is (typeof REQUEST_PATH)[number] {
  return (REQUEST_PATH as readonly QueueName[]).includes(queue);
}

/**
 * What the workers of one queue did, as counted since the deployment's counters began
 * (docs/fs-and-mcp.md, "system/wait"): jobs that succeeded, attempts that failed and will be retried,
 * and jobs that failed for good. Counters only grow; a missing field is 0.
 */
export interface QueueCounters {
  processed: number;
  retried: number;
  failed: number;
}

/** One recorded final failure: its coded message, when it happened (epoch ms), whose job it was. */
export interface QueueFailure {
  message: string;
  at: number;
  /** The job's account; null when the payload named none (a malformed job). */
  account: string | null;
}

/** The wire shape of one queue in `system/wait` (the reference's field names). */
export interface QueueActivityReport {
  processed: number;
  requeue_count: number;
  error_count: number;
  errors: { message: string }[];
}

export const NO_COUNTERS: QueueCounters = { processed: 0, retried: 0, failed: 0 };

/**
 * What happened on a queue between two snapshots of its counters. `recent` is the queue's recorded
 * failures newest first, read atomically with `after`: the first `error_count` of them are exactly the
 * failures since `before` (each job records its count and its message together), so no clock of
 * another process is trusted. A counter lower than before means its key was reset (deleted): then
 * everything counted since the reset is what happened. At most `maxErrors` messages are returned.
 *
 * Counts cover every tenant (the wait is for all queues); a message can name a tenant's URIs, so a
 * `viewer` account sees only its own failures' messages, and null (the root key) sees all.
 */
export function queueActivity(
  before: QueueCounters,
  after: QueueCounters,
  recent: readonly QueueFailure[],
  maxErrors: number,
  viewer: string | null,
): QueueActivityReport {
  const delta = (k: keyof QueueCounters) => {
    const d = after[k] - before[k];
    return d >= 0 ? d : after[k];
  };
  const errorCount = delta('failed');
  const since = recent.slice(0, Math.max(0, errorCount));
  const visible = viewer === null ? since : since.filter((f) => f.account === viewer);
  return {
    processed: delta('processed'),
    requeue_count: delta('retried'),
    error_count: errorCount,
    errors: visible.slice(0, Math.max(0, maxErrors)).map((f) => ({ message: f.message })),
  };
}

/** Counters from a Redis hash (HGETALL: string values, absent fields); anything unreadable counts 0. */
export function parseQueueCounters(hash: Record<string, string> | null | undefined): QueueCounters {
  const n = (v: string | undefined) => {
    const x = v === undefined ? 0 : Number(v);
    return Number.isSafeInteger(x) && x >= 0 ? x : 0;
  };
  return { processed: n(hash?.processed), retried: n(hash?.retried), failed: n(hash?.failed) };
}

const UNREADABLE: QueueFailure = { message: 'unreadable failure record', at: 0, account: null };

/**
 * A recorded failure from its stored JSON. An entry this version cannot read still stands for one
 * failure (the list is matched to the counters by position), with a placeholder message.
 */
export function parseQueueFailure(raw: string): QueueFailure {
  try {
    const v = JSON.parse(raw) as { m?: unknown; t?: unknown; a?: unknown } | null;
    if (typeof v?.m !== 'string' || typeof v.t !== 'number') return UNREADABLE;
    return { message: v.m, at: v.t, account: typeof v.a === 'string' ? v.a : null };
  } catch {
    return UNREADABLE;
  }
}

/** The stored JSON of a failure, its message cut to `maxChars` code points. */
export function encodeQueueFailure(message: string, at: number, maxChars: number, account: string | null): string {
  // Cut in code units first, so a huge message costs no more than a short one.
  const cps = Array.from(message.slice(0, maxChars * 2 + 2));
  const m = cps.length > maxChars ? `${cps.slice(0, maxChars).join('')}…` : cps.join('');
  return JSON.stringify(account === null ? { m, t: at } : { m, t: at, a: account.slice(0, 256) });
}

/**
 * What travels with a job besides its payload, under {@link JOB_META_KEY} (see docs/operations.md
 * "Request ids and deadlines"). The job buses add it; the processor base strips it before validation.
 */
export interface JobMeta {
  /** Id of the HTTP request that caused the job, so every process logs the same id. */
  requestId?: string;
  /**
   * Epoch milliseconds after which nobody waits for the result. Set on request-scoped jobs only
   * (find, assemble, expand, digest); a worker drops such a job once this has passed.
   */
  deadlineAt?: number;
  /** W3C `traceparent` of the span that enqueued the job (present only while tracing is on). */
  traceparent?: string;
  /** The account whose request or job added it: the job's work runs as that account's (its store statements). */
  accountId?: string;
}

/** Payload key of {@link JobMeta}; no payload field of any queue uses it. */
export const JOB_META_KEY = '_meta';

/** Splits a raw job payload into the payload proper and its meta (empty when absent or malformed). */
export function splitJobMeta(raw: unknown): { data: unknown; meta: JobMeta } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !(JOB_META_KEY in raw)) return { data: raw, meta: {} };
  const { [JOB_META_KEY]: m, ...data } = raw as Record<string, unknown>;
  const meta: JobMeta = {};
  if (m && typeof m === 'object') {
    const r = m as Record<string, unknown>;
    if (typeof r.requestId === 'string' && r.requestId.length <= 200) meta.requestId = r.requestId;
    if (typeof r.deadlineAt === 'number' && Number.isFinite(r.deadlineAt)) meta.deadlineAt = r.deadlineAt;
    if (typeof r.traceparent === 'string' && r.traceparent.length <= 200) meta.traceparent = r.traceparent;
    if (typeof r.accountId === 'string' && r.accountId.length <= 200) meta.accountId = r.accountId;
  }
  return { data, meta };
}

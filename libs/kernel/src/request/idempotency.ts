import { KernelError, KernelErrorCode } from '../kernel.error';

/**
 * Retried writes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"): a write sent with
 * an `Idempotency-Key` header is applied at most once per caller and key; a retry with the same key and
 * the same request gets the first reply again, marked `Idempotent-Replayed: true`.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The header every replayed reply carries. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/**
 * How long a first attempt holds its key, unless renewed, before a retry may take it over (the default of
 * `MUNINN_IDEMPOTENCY_LEASE_S`; a running attempt renews it). Only an attempt that has changed nothing can be
 * taken over, and such an attempt then fails at its first write (its token no longer holds the key), so a
 * slow first attempt and its retry never both apply.
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;

/**
 * What makes a request "the same request" for its key, as two digests: `value` over its canonical form (keys and
 * query parameters in any order are one request), and `asSent` over the request as it came, which versions before
 * canonical fingerprints stored and compared. Both are kept with the key: a key claimed by either version is
 * recognised by the other while both run (a rolling deploy, a rollback within the keys' day).
 */
export interface Fingerprint {
  value: string;
  asSent: string;
}

/** A key's stored state, as the store reads it for a new attempt. */
export interface IdempotencyRecord {
  /** The digest over the request as sent (every version keeps it). */
  fingerprint: string;
  /** The canonical digest; null on a key a version before canonical fingerprints claimed. */
  canonicalFingerprint: string | null;
  /** Some transaction of the attempt holding the key has committed. */
  applied: boolean;
  /** The reply, once the attempt finished; null while it runs (or when it stopped before answering). */
  reply: StoredReply | null;
  /** The holding attempt's lease has run out. */
  leaseExpired: boolean;
}

/** A finished attempt's reply, replayed byte for byte. */
export interface StoredReply {
  status: number;
  contentType: string;
  body: string;
  /** Set on a 504 whose write was stored: a retry waits for its indexing again instead of replaying the 504. */
  resume?: PendingIndexWait;
  /**
   * The token of the attempt that kept the reply, as read: a retry's answer to a resumed wait replaces the kept 504
   * only while the key is still that attempt's (not expired or trimmed and claimed by another request meanwhile).
   */
  holder?: string;
}

/**
 * A write that was applied and stored, whose wait for its indexing ran out (504): what a retry with the same
 * key waits for again, so that the retry learns how the write ended instead of the 504 being replayed for the
 * key's whole life (docs/limits-and-security.md, "A retry after a wait that ran out").
 */
export interface PendingIndexWait {
  /** Whose answer to build once the entries are indexed. */
  route: 'write' | 'batch-write' | 'reindex' | 'delete';
  /** The route's answer as it stood before the wait, its index fields still queued. */
  answer: Record<string, unknown>;
  /** The write's outbox entries: id, the queue job it was given (null: the relay's), how many nodes. */
  entries: PendingIndexEntry[];
  /** The request's own `timeout` in seconds, or null for the deployment's default wait. */
  timeoutS: number | null;
  /** When the route began (epoch ms): a reindex answers its duration. */
  startedAt: number;
}

export interface PendingIndexEntry {
  outboxId: number;
  jobId: string | null;
  nodes: number;
}

const WAIT_ROUTES: ReadonlySet<string> = new Set(['write', 'batch-write', 'reindex', 'delete']);

/**
 * A kept wait read back (from the store's JSON), or null when it is not one this version can resume: the kept 504
 * is then replayed as it is, never a 500 and never a 200 answer built from a route this version does not know.
 */
export function readPendingIndexWait(value: unknown): PendingIndexWait | null {
  if (typeof value !== 'object' || value === null) return null;
  const w = value as Record<string, unknown>;
  const entryOk = (e: unknown) => {
    const x = e as Record<string, unknown> | null;
    return (
      typeof x === 'object' &&
      x !== null &&
      Number.isSafeInteger(x.outboxId) &&
      (x.jobId === null || typeof x.jobId === 'string') &&
      Number.isSafeInteger(x.nodes) &&
      (x.nodes as number) >= 0
    );
  };
  const ok =
    typeof w.route === 'string' &&
    WAIT_ROUTES.has(w.route) &&
    typeof w.answer === 'object' &&
    w.answer !== null &&
    !Array.isArray(w.answer) &&
    Array.isArray(w.entries) &&
    w.entries.every(entryOk) &&
    (w.timeoutS === null || (typeof w.timeoutS === 'number' && Number.isFinite(w.timeoutS) && w.timeoutS >= 0)) &&
    typeof w.startedAt === 'number' &&
    Number.isFinite(w.startedAt);
  return ok ? (value as PendingIndexWait) : null;
}

/** What a new attempt does with its key. */
export type IdempotencyDecision =
  { kind: 'replay'; reply: StoredReply } | { kind: 'take-over' } | { kind: 'refuse'; error: KernelError };

/** `null` when `key` is usable; else why not (400 naming the header, or `name`: where an MCP call carries it). */
export function idempotencyKeyProblem(key: string, maxChars: number, name = 'Idempotency-Key'): KernelError | null {
  const field = { field: name };
  if (key.length === 0) return new KernelError(KernelErrorCode.InvalidArgument, `${name} is empty`, field);
  if (key.length > maxChars)
    return new KernelError(
      KernelErrorCode.InvalidArgument,
      `${name} has ${key.length} characters; at most ${maxChars} are allowed (MUNINN_IDEMPOTENCY_KEY_MAX_CHARS)`,
      { ...field, max: maxChars },
    );
  // Printable ASCII without spaces: what a UUID, a ULID or a client's own token is made of.
  if (!/^[\x21-\x7e]+$/.test(key))
    return new KernelError(
      KernelErrorCode.InvalidArgument,
      `${name} may hold printable ASCII characters only (no spaces or control characters)`,
      field,
    );
  return null;
}

/** 409 for a key another attempt holds (still running, or taken between the store's reads). */
export function idempotencyInProgress(): KernelError {
  return new KernelError(
    KernelErrorCode.Conflict,
    'A request with this Idempotency-Key is still running; retry when it has answered',
    { field: 'Idempotency-Key', reason: 'in_progress', retry_after_s: 1 },
  );
}

/** What a new attempt with `fingerprint` does, given the key's stored record. */
export function decideIdempotency(stored: IdempotencyRecord, fingerprint: Fingerprint): IdempotencyDecision {
  const same =
    stored.canonicalFingerprint === null
      ? stored.fingerprint === fingerprint.asSent
      : stored.canonicalFingerprint === fingerprint.value;
  if (!same)
    return {
      kind: 'refuse',
      error: new KernelError(
        KernelErrorCode.IdempotencyKeyReused,
        'Idempotency-Key was already used for a different request (another route, query, actor peer or body); send a new key for a new request',
        { field: 'Idempotency-Key', reason: 'different_request' },
      ),
    };
  if (stored.reply) return { kind: 'replay', reply: stored.reply };
  if (!stored.applied && stored.leaseExpired) return { kind: 'take-over' };
  if (!stored.leaseExpired) return { kind: 'refuse', error: idempotencyInProgress() };
  return {
    kind: 'refuse',
    error: new KernelError(
      KernelErrorCode.Conflict,
      'The request first sent with this Idempotency-Key changed data, but the server stopped before answering it; it is not applied again. Read the current state, or send a new key to apply it again.',
      { field: 'Idempotency-Key', reason: 'reply_lost' },
    ),
  };
}

/**
 * Whether a finished attempt's reply is kept for its retries: when the attempt changed something (the
 * retry must not apply it again) or succeeded. A refusal that changed nothing (bad input, a limit, a
 * store outage) frees the key, so the retry runs afresh.
 */
export function keepsReply(status: number, applied: boolean): boolean {
  return applied || (status >= 200 && status < 300);
}

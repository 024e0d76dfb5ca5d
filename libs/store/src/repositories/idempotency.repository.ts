import { randomUUID } from 'node:crypto';
import {
  decideIdempotency,
  Fingerprint,
  IDEMPOTENCY_LEASE_MS,
  idempotencyInProgress,
  IdempotencyDecision,
  KernelError,
  KernelErrorCode,
  PendingIndexWait,
  readPendingIndexWait,
  StoredReply,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { outsideWriteScope } from '../db/write-scope';
import { deleteInSteps } from './delete-steps';

/** Whose key: keys are per caller, so two users of one account never share one. */
export interface KeyOwner {
  accountId: string;
  userId: string;
}

/** An attempt's hold on a key; only the holder's token can mark, finish or free it. */
export interface IdempotencyClaim extends KeyOwner {
  key: string;
  token: string;
}

export type ClaimOutcome =
  { kind: 'claimed'; claim: IdempotencyClaim } | Exclude<IdempotencyDecision, { kind: 'take-over' }>;

interface KeyRow {
  fingerprint: string;
  canonical_fingerprint: string | null;
  token: string;
  applied: boolean;
  reply_status: number | null;
  reply_type: string | null;
  reply_body: string | null;
  reply_resume: string | null;
  lease_expired: boolean;
}

const PK = 'account_id = $1 AND user_id = $2 AND idem_key = $3';
/** Expired rows go this many per statement, so a large backlog of them never runs past the statement timeout. */
const SWEEP_STEP = 5_000;

/**
 * Idempotency keys of retried writes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key").
 * Every statement here runs outside the caller's write scope: the key's bookkeeping is not the write.
 */
export class IdempotencyRepository {
  constructor(
    private readonly db: Db,
    private readonly ttlS: number,
    /** What one account keeps at most: keys, and bytes of kept replies. */
    private readonly perAccount: { keys: number; bytes: number },
    /** How long a running attempt holds its key unless it renews it ({@link renewLease}). */
    private readonly leaseS = IDEMPOTENCY_LEASE_MS / 1000,
  ) {}

  /**
   * Takes the key for a new attempt, or says what to do instead: replay the kept reply, or refuse
   * (another request, still running, or applied with its reply lost). An expired row counts as absent.
   */
  claim(owner: KeyOwner, key: string, fingerprint: Fingerprint): Promise<ClaimOutcome> {
    return outsideWriteScope(async (): Promise<ClaimOutcome> => {
      const base = [owner.accountId, owner.userId, key];
      const lease = this.leaseS;
      for (let round = 0; round < 3; round++) {
        const token = randomUUID();
        const taken = await this.db.query(
          `INSERT INTO idempotency_keys AS k (account_id, user_id, idem_key, fingerprint, canonical_fingerprint, token,
             lease_until, expires_at)
           VALUES ($1, $2, $3, $4, $8, $5, now() + $6 * interval '1 second', now() + $7 * interval '1 second')
           ON CONFLICT (account_id, user_id, idem_key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, canonical_fingerprint = EXCLUDED.canonical_fingerprint,
                 token = EXCLUDED.token, applied = false, reply_status = NULL,
                 reply_type = NULL, reply_body = NULL, reply_resume = NULL, created_at = now(), lease_until = EXCLUDED.lease_until,
                 expires_at = EXCLUDED.expires_at
             WHERE k.expires_at <= now()`,
          [...base, fingerprint.asSent, token, lease, Math.max(this.ttlS, lease), canonicalColumn(fingerprint)],
        );
        if (taken.rowCount === 1) return { kind: 'claimed', claim: { ...owner, key, token } };
        const { rows } = await this.db.query<KeyRow>(
          `SELECT fingerprint, canonical_fingerprint, token, applied, reply_status, reply_type, reply_body, reply_resume,
                  lease_until <= now() AS lease_expired
           FROM idempotency_keys WHERE ${PK}`,
          base,
        );
        const row = rows[0];
        if (!row) continue; // swept between the two statements: try again
        const decision = decideIdempotency(
          {
            fingerprint: row.fingerprint,
            canonicalFingerprint: canonicalOf(row),
            applied: row.applied,
            leaseExpired: row.lease_expired,
            reply: replyOf(row),
          },
          fingerprint,
        );
        if (decision.kind !== 'take-over') return decision;
        // The holder changed nothing and its lease ran out: take the key over; its first write will now fail.
        const moved = await this.db.query(
          `UPDATE idempotency_keys SET token = $5, lease_until = now() + $6 * interval '1 second',
             expires_at = greatest(expires_at, now() + $6 * interval '1 second')
           WHERE ${PK} AND token = $4 AND NOT applied AND reply_status IS NULL`,
          [...base, row.token, token, lease],
        );
        if (moved.rowCount === 1) return { kind: 'claimed', claim: { ...owner, key, token } };
      }
      // Taken and freed by other attempts between our reads three times over: as good as running.
      return { kind: 'refuse', error: idempotencyInProgress() };
    });
  }

  /**
   * Renews a running attempt's lease (and keeps its key from expiring under it): false once the attempt no longer
   * holds the key (its reply kept, freed, or taken over), so the renewing stops.
   */
  renewLease(c: IdempotencyClaim): Promise<boolean> {
    return outsideWriteScope(async () => {
      const { rowCount } = await this.db.query(
        `UPDATE idempotency_keys SET lease_until = now() + $5 * interval '1 second',
           expires_at = greatest(expires_at, now() + $5 * interval '1 second')
         WHERE ${PK} AND token = $4 AND reply_status IS NULL`,
        [c.accountId, c.userId, c.key, c.token, this.leaseS],
      );
      return rowCount === 1;
    });
  }

  /**
   * Marks a running attempt's key as not applied again, after the attempt removed everything it had written (a
   * compensating delete): its refusal then frees the key, as one that changed nothing.
   */
  markUnapplied(c: IdempotencyClaim): Promise<void> {
    return outsideWriteScope(async () => {
      await this.db.query(
        `UPDATE idempotency_keys SET applied = false WHERE ${PK} AND token = $4 AND reply_status IS NULL`,
        [c.accountId, c.userId, c.key, c.token],
      );
    });
  }

  /** The lease a running attempt holds its key for, in ms. */
  get leaseMs(): number {
    return this.leaseS * 1000;
  }

  /** Marks the key applied inside the attempt's write transaction; refused when the key has another holder. */
  async markApplied(tx: Pick<Db, 'query'>, c: IdempotencyClaim): Promise<void> {
    const { rowCount } = await tx.query(`UPDATE idempotency_keys SET applied = true WHERE ${PK} AND token = $4`, [
      c.accountId,
      c.userId,
      c.key,
      c.token,
    ]);
    if (rowCount === 1) return;
    throw new KernelError(
      KernelErrorCode.Conflict,
      'A retry with the same Idempotency-Key took this request over after its lease ran out; nothing of this attempt was applied',
      { field: 'Idempotency-Key', reason: 'superseded' },
    );
  }

  /** Keeps the attempt's reply for its retries (with what they wait for again, when it is a resumable 504). */
  keepReply(c: IdempotencyClaim, reply: StoredReply): Promise<void> {
    return outsideWriteScope(async () => {
      await this.db.query(
        `UPDATE idempotency_keys SET reply_status = $5, reply_type = $6, reply_body = $7, reply_resume = $8
         WHERE ${PK} AND token = $4`,
        [
          c.accountId,
          c.userId,
          c.key,
          c.token,
          reply.status,
          reply.contentType,
          reply.body,
          reply.resume ? JSON.stringify(reply.resume) : null,
        ],
      );
    });
  }

  /**
   * Replaces a resumable 504 with the answer a retry completed after the write's indexing ended; the first
   * retry to finish wins (any other finished with the same facts). Only while the key is still held by `holder`,
   * the attempt whose 504 the retry read: a key that expired (or was trimmed) and was claimed by another request
   * while the retry waited keeps that request's reply.
   */
  keepResumed(owner: KeyOwner, key: string, holder: string, reply: Omit<StoredReply, 'resume'>): Promise<void> {
    return outsideWriteScope(async () => {
      await this.db.query(
        `UPDATE idempotency_keys SET reply_status = $4, reply_type = $5, reply_body = $6, reply_resume = NULL
         WHERE ${PK} AND reply_resume IS NOT NULL AND token = $7`,
        [owner.accountId, owner.userId, key, reply.status, reply.contentType, reply.body, holder],
      );
    });
  }

  /** Frees the key of an attempt that changed nothing, so a retry runs afresh. */
  release(c: IdempotencyClaim): Promise<void> {
    return outsideWriteScope(async () => {
      await this.db.query(`DELETE FROM idempotency_keys WHERE ${PK} AND token = $4 AND NOT applied`, [
        c.accountId,
        c.userId,
        c.key,
        c.token,
      ]);
    });
  }

  /** Deletes expired keys, a step at a time. */
  sweepExpired(): Promise<void> {
    return outsideWriteScope(async () => {
      await deleteInSteps(this.db, 'idempotency_keys', 'expires_at <= now()', [], SWEEP_STEP);
    });
  }

  /**
   * Keeps an account's newest keys within both bounds, `perAccount.keys` keys and `perAccount.bytes`
   * bytes of kept replies, and deletes the rest (the oldest first); answers how many went. Reads at
   * most the account's rows (themselves bounded by the key count) to find the cut.
   */
  trimAccount(accountId: string): Promise<number> {
    return outsideWriteScope(async () => {
      // The newest row past either bound, as text: a JavaScript Date would drop the microseconds, and
      // the cut row would stay. Reply sizes are read from the values' headers (octet_length reads no body).
      const { rows } = await this.db.query<{ created_at: string }>(
        `SELECT created_at::text AS created_at FROM (
           SELECT created_at,
                  row_number() OVER newest AS n,
                  sum(coalesce(octet_length(reply_body), 0) + coalesce(octet_length(reply_resume), 0)) OVER newest AS bytes
           FROM idempotency_keys WHERE account_id = $1
           WINDOW newest AS (ORDER BY created_at DESC ROWS UNBOUNDED PRECEDING)
         ) k
         WHERE n > $2 OR bytes > $3
         ORDER BY created_at DESC LIMIT 1`,
        [accountId, this.perAccount.keys, this.perAccount.bytes],
      );
      if (!rows[0]) return 0;
      // A key whose attempt still runs is kept: deleting it would fail that attempt's write.
      const gone = await deleteInSteps(
        this.db,
        'idempotency_keys',
        `account_id = $1 AND created_at <= $2::timestamptz AND (reply_status IS NOT NULL OR lease_until <= now())`,
        [accountId, rows[0].created_at],
        SWEEP_STEP,
        'idem_key',
      );
      return gone.length;
    });
  }
}

/**
 * The canonical digest as kept: after the digest as sent it belongs with, so a row a version before canonical
 * fingerprints took over (it rewrites `fingerprint` only, leaving the previous holder's canonical digest) is read
 * as having none, and is compared by the digest as sent.
 */
function canonicalColumn(f: Fingerprint): string {
  return `${f.asSent} ${f.value}`;
}

function canonicalOf(r: KeyRow): string | null {
  const prefix = `${r.fingerprint} `;
  return r.canonical_fingerprint?.startsWith(prefix) ? r.canonical_fingerprint.slice(prefix.length) : null;
}

function replyOf(r: KeyRow): StoredReply | null {
  if (r.reply_status === null) return null;
  const reply = { status: r.reply_status, contentType: r.reply_type ?? 'application/json', body: r.reply_body ?? '' };
  const resume = r.reply_resume ? resumeOf(r.reply_resume) : null;
  return resume ? { ...reply, resume, holder: r.token } : reply;
}

/** What a kept 504's retries wait for; a value this version cannot read leaves the 504 a plain replay. */
function resumeOf(text: string): PendingIndexWait | null {
  try {
    return readPendingIndexWait(JSON.parse(text));
  } catch {
    return null;
  }
}

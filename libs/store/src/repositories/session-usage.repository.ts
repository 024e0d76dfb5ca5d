import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { Db } from '../db/db.port';
import { AccountQuota, enforceQuota } from './account-usage';
import { scopeSql } from './scope';

type Tx = Pick<Db, 'query' | 'kind'>;

/** One thing the agent reports it used: a context (memory, resource) or a skill with its call. */
export interface UsageEntry {
  kind: 'context' | 'skill';
  /** Canonical `viking://` URI. */
  uri: string;
  skill?: { input: string; output: string; success: boolean };
}

/** What a commit's extraction consumed: usage records, and nodes whose `active_count` went up. */
export interface UsageConsumed {
  events: number;
  nodes: number;
}

/**
 * Usage records of `POST /sessions/{id}/used`, persisted (the reference keeps them only in the
 * request's memory) and consumed by the session's next commit (docs/sessions.md "Usage records").
 * A session holds at most `maxRecords` of them uncommitted (MUNINN_SESSION_MAX_USAGE_RECORDS), and they
 * count toward the account's content bytes.
 */
export class SessionUsageRepository {
  constructor(
    private readonly db: Db,
    private readonly maxRecords = Number.MAX_SAFE_INTEGER,
    private readonly quota?: AccountQuota,
  ) {}

  /**
   * Stores the entries for the caller's session, all or none: a missing session is NOT_FOUND, a session
   * that would hold more than `maxRecords` records, or an account past its quota, 413.
   */
  async record(identity: Identity, sessionId: string, entries: UsageEntry[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      // NO KEY UPDATE: one session's records are counted and added one call at a time, and a concurrent
      // delete waits for this insert (or this one sees the session gone).
      const { rows } = await tx.query(
        'SELECT 1 FROM sessions WHERE account_id = $1 AND user_id = $2 AND session_id = $3 FOR NO KEY UPDATE',
        [identity.accountId, identity.userId, sessionId],
      );
      if (rows.length === 0)
        throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
          type: 'session',
          resource: sessionId,
        });
      if (entries.length === 0) return;
      // One statement after the lock (its snapshot then sees every committed record): the records held, the
      // insert unless it would pass `maxRecords`, and the bytes the usage trigger counts for the new rows
      // (usage_record_bytes, migration 95).
      const { rows: counted } = await tx.query<{ held: number; bytes: string }>(
        `WITH held AS (
           SELECT count(*)::int AS n FROM session_usage
            WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND consumed_by IS NULL),
         ins AS (
           INSERT INTO session_usage (account_id, user_id, session_id, kind, uri, skill)
           SELECT $1, $2, $3, t.kind, t.uri, t.skill::jsonb FROM unnest($4::text[], $5::text[], $6::text[]) AS t(kind, uri, skill)
            WHERE (SELECT n FROM held) + cardinality($4::text[]) <= $7::bigint
           RETURNING usage_record_bytes(uri, skill) AS bytes)
         SELECT (SELECT n FROM held) AS held, (SELECT coalesce(sum(bytes), 0) FROM ins)::text AS bytes`,
        [
          identity.accountId,
          identity.userId,
          sessionId,
          entries.map((e) => e.kind),
          entries.map((e) => e.uri),
          entries.map((e) => (e.skill ? JSON.stringify(e.skill) : null)),
          this.maxRecords,
        ],
      );
      const { held, bytes } = counted[0]!;
      if (held + entries.length > this.maxRecords) throw this.tooMany(sessionId, held, entries.length);
      await enforceQuota(tx, identity.accountId, this.quota, { nodes: 0, contentBytes: Number(bytes) });
    });
  }

  /** 413: the session would hold more than `maxRecords` records not yet consumed by a commit. */
  private tooMany(sessionId: string, held: number, adding: number): KernelError {
    return new KernelError(
      KernelErrorCode.PayloadTooLarge,
      `Session ${sessionId} would hold ${held + adding} usage records (at most ${this.maxRecords}) not yet committed: commit it first (POST /api/v1/sessions/${sessionId}/commit)`,
      { field: 'contexts', usage_records: held, max_usage_records: this.maxRecords },
    );
  }
}

/**
 * Inside a commit's completing transaction: deletes the session's usage records (nothing reads them after
 * this) and adds, per node the owner can see, how many records name it to its `active_count`. The caller
 * runs it only while the task is not yet completed, so a replayed job counts nothing twice.
 */
export async function consumeUsage(tx: Tx, identity: Identity, sessionId: string): Promise<UsageConsumed> {
  // consumed_by IS NULL: every row since migration 95; the condition lets the partial index serve it.
  const { rows } = await tx.query<{ uri: string }>(
    `DELETE FROM session_usage
     WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND consumed_by IS NULL RETURNING uri`,
    [identity.accountId, identity.userId, sessionId],
  );
  if (rows.length === 0) return { events: 0, nodes: 0 };
  const scope = scopeSql(identity, 2, 'n');
  // Locked in URI order first, so two commits counting the same nodes do not deadlock on each other here. NO KEY:
  // the count changes no key, and a writer into a used directory holds it FOR KEY SHARE (node-write.ts).
  await tx.query(
    `SELECT 1 FROM nodes n WHERE n.uri = ANY($1::text[]) AND ${scope.sql} ORDER BY n.uri FOR NO KEY UPDATE`,
    [[...new Set(rows.map((r) => r.uri))], ...scope.params],
  );
  const { rowCount } = await tx.query(
    `UPDATE nodes n SET active_count = n.active_count + u.c
     FROM (SELECT uri, count(*)::int AS c FROM unnest($1::text[]) AS x(uri) GROUP BY uri) u
     WHERE n.uri = u.uri AND ${scope.sql}`,
    [rows.map((r) => r.uri), ...scope.params],
  );
  return { events: rows.length, nodes: rowCount ?? 0 };
}

import { AuditAction, AuditEvent } from '@app/kernel';
import { Db } from '../db/db.port';

/** What one admin action records. */
export interface AuditRecord {
  action: AuditAction;
  accountId: string;
  userId?: string | null;
  /** Null account and user: the root key. */
  actor: { accountId: string | null; userId: string | null; role: string };
  details?: Record<string, unknown>;
  requestId?: string | null;
}

/** Expired events one recording deletes at most: pruning stays a bounded part of an admin action. */
const PRUNE_STEP = 100;

interface AuditRow {
  id: string;
  at: Date | string;
  action: AuditAction;
  subject_account: string;
  subject_user: string | null;
  actor_account: string | null;
  actor_user: string | null;
  actor_role: string;
  details: Record<string, unknown> | null;
  request_id: string | null;
}

/** Where an admin action's event is recorded: inside the action's own transaction, kept this many days. */
export interface AuditSink {
  record: AuditRecord;
  retentionDays: number;
}

/**
 * Records one admin action in the transaction `tx` that makes it (docs/limits-and-security.md, "Audit
 * trail"): the action and its event commit together or not at all, so no change escapes the trail. Also
 * deletes up to `PRUNE_STEP` events older than the retention, so the trail stays bounded without a
 * scheduler: admin actions are rare, and each removes more expired events than it adds.
 */
export async function insertAudit(tx: Pick<Db, 'query'>, { record: e, retentionDays }: AuditSink): Promise<void> {
  await tx.query(
    `INSERT INTO audit_events (action, subject_account, subject_user, actor_account, actor_user, actor_role, details, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)`,
    [
      e.action,
      e.accountId,
      e.userId ?? null,
      e.actor.accountId,
      e.actor.userId,
      e.actor.role,
      JSON.stringify(e.details ?? {}),
      e.requestId ?? null,
    ],
  );
  await tx.query(
    `DELETE FROM audit_events WHERE id IN (
       SELECT id FROM audit_events WHERE at < now() - make_interval(days => $1) ORDER BY at LIMIT ${PRUNE_STEP})`,
    [retentionDays],
  );
}

/** The admin audit trail as its readers see it (docs/limits-and-security.md, "Audit trail"). */
export class AuditRepository {
  constructor(
    private readonly db: Db,
    /** Passed to the identity store's actions, which record their events with `insertAudit`. */
    readonly retentionDays: number,
  ) {}

  /** Records an action that writes nothing itself (an export) in a transaction of its own. */
  async record(sink: AuditSink): Promise<void> {
    await this.db.transaction((tx) => insertAudit(tx, sink));
  }

  /** The sink an action of `record` writes its event to. */
  sink(record: AuditRecord): AuditSink {
    return { record, retentionDays: this.retentionDays };
  }

  /** The account's events, newest first: at most `limit`, those before event id `before` when given. */
  async list(accountId: string, limit: number, before: number | null, sinceDeletion = false): Promise<AuditEvent[]> {
    // `sinceDeletion`: only what followed the id's last `account.delete`, the present account's own trail; an account
    // made again under a deleted one's id is another tenant (its admin read the deleted tenant's users and reasons).
    const since = sinceDeletion
      ? `AND id > coalesce((SELECT max(id) FROM audit_events WHERE subject_account = $1 AND action = 'account.delete'), 0)`
      : '';
    const { rows } = await this.db.query<AuditRow>(
      `SELECT id, at, action, subject_account, subject_user, actor_account, actor_user, actor_role, details, request_id
       FROM audit_events WHERE subject_account = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ${since}
       ORDER BY id DESC LIMIT $3`,
      [accountId, before, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      at: new Date(r.at).toISOString(),
      action: r.action,
      account_id: r.subject_account,
      user_id: r.subject_user,
      actor: { account_id: r.actor_account, user_id: r.actor_user, role: r.actor_role },
      details: r.details ?? {},
      request_id: r.request_id,
    }));
  }
}

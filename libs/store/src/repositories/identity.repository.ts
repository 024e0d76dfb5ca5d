import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  AccountLimitOverrides,
  AccountSuspension,
  KernelError,
  KernelErrorCode,
  limitSource,
  readLimitOverrides,
  userRoot,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { retryAborted } from '../db/store-errors';
import { lockTenantRows } from '../db/tenant-rows-lock';
import { AuditSink, insertAudit } from './audit.repository';
import { deleteInSteps } from './delete-steps';
import { abandonedImportSql, IMPORT_SUSPENSION_REASON, importHeldSql } from './import-suspension';
import { quotaExceeded, readOwnLimits } from './account-usage';

export type UserRole = 'admin' | 'user';

export interface AccountRecord {
  account_id: string;
  created_at: string;
  user_count: number;
  /** Null while the account is in service (docs/limits-and-security.md, "Suspending an account"). */
  suspended: AccountSuspension | null;
  /** While an import makes the account: how far it got, as of its last heartbeat; else null. */
  import: ImportProgress | null;
}

/** A running import's progress (docs/limits-and-security.md, "Importing an account"). */
export interface ImportProgress {
  heartbeat_at: string;
  lines: number;
  nodes: number;
  sessions: number;
  archives: number;
  messages: number;
}

export interface UserRecord {
  account_id: string;
  user_id: string;
  role: UserRole;
  created_at: string;
}

/** A key's owner as the gateway admits it: the user, and whether their account is suspended. */
/** One key of a user as the admin API shows it (never the key). */
export interface UserKeyRecord {
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface KeyOwnerRecord extends UserRecord {
  suspended: AccountSuspension | null;
  /** When this key stops working (a key a rotation kept for a while), else null. */
  key_expires_at: string | null;
}

interface AccountRow {
  account_id: string;
  created_at: Date | string;
  user_count: number;
  suspended_at: Date | string | null;
  suspended_reason: string | null;
  import_heartbeat_at: Date | string | null;
  import_progress: Omit<ImportProgress, 'heartbeat_at'> | null;
}

const ACCOUNT_COLUMNS = `a.account_id, a.created_at, a.suspended_at, a.suspended_reason, a.import_heartbeat_at,
  a.import_progress, (SELECT count(*)::int FROM users u WHERE u.account_id = a.account_id) AS user_count`;

const suspensionOf = (r: Pick<AccountRow, 'suspended_at' | 'suspended_reason'>): AccountSuspension | null =>
  r.suspended_at === null ? null : { since: iso(r.suspended_at), reason: r.suspended_reason ?? '' };

const toAccount = (r: AccountRow): AccountRecord => ({
  account_id: r.account_id,
  created_at: iso(r.created_at),
  user_count: r.user_count,
  suspended: suspensionOf(r),
  import:
    r.import_heartbeat_at === null
      ? null
      : {
          heartbeat_at: iso(r.import_heartbeat_at),
          lines: 0,
          nodes: 0,
          sessions: 0,
          archives: 0,
          messages: 0,
          ...(r.import_progress ?? {}),
        },
});

const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** SHA-256 of a key; what is stored and looked up. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * A new-format user key: base64url(account) . base64url(user) . 64 hex chars of secret
 * (docs/contract.md#accounts-users-and-keys).
 * A seeded secret is an HMAC under the server secret over account, user and seed (unlike the
 * reference's plain hash of user and seed), so nobody without the server secret can compute a key,
 * and one seed gives unrelated keys in two accounts (docs/limits-and-security.md, "Keys and roles").
 */
export function newUserKey(accountId: string, userId: string, seeded?: { seed: string; serverSecret: string }): string {
  const secret = seeded
    ? createHmac('sha256', seeded.serverSecret)
        .update(JSON.stringify([accountId, userId, seeded.seed]), 'utf8')
        .digest('hex')
    : randomBytes(32).toString('hex');
  return `${b64url(accountId)}.${b64url(userId)}.${secret}`;
}

/** The server secret of seeded keys: the configured one, else one derived from the root key. */
export function keyServerSecret(keySecret: string | null, rootApiKey: string | null): string | null {
  if (keySecret) return keySecret;
  return rootApiKey ? createHmac('sha256', rootApiKey).update('muninn seeded user keys', 'utf8').digest('hex') : null;
}

/**
 * The tables a deleted account's rows are removed from, besides `accounts` itself: `users` and `api_keys` go
 * by cascade from it, and a session's messages, archives, tool results and usage records from `sessions`. A
 * new table keyed by account_id belongs here: test/e2e/admin-deletion.e2e-spec.ts fails while any table keeps
 * rows of a deleted account. `account_usage` comes after `nodes` and `sessions`: deleting them (and the
 * messages sessions take) appends the usage triggers' negative rows, which its own deletion then removes.
 */
const ACCOUNT_TABLES = [
  'nodes',
  'sessions',
  'session_archive_marks',
  'account_usage',
  'session_tasks',
  'upload_tokens',
  'term_df',
  'sidecar_state',
  'index_outbox',
  'idempotency_keys',
] as const;

/**
 * Rows one statement of a user's or account's deletion removes at most; a session takes its messages with
 * it, so sessions go fewer at a time. Everything stays in the one transaction, and no statement of a large
 * tenant's deletion runs past the store's statement timeout.
 */
const DELETE_ROWS_STEP = 5000;
const STEP_OF: Readonly<Record<string, number>> = { sessions: 20 };
const stepOf = (table: string) => STEP_OF[table] ?? DELETE_ROWS_STEP;

const iso = (v: unknown) => new Date(v as string).toISOString();
const isoOrNull = (v: unknown) => (v === null ? null : iso(v));

/** Accounts, users and their hashed API keys. */
export class IdentityRepository {
  /** `serverSecret`: what seeded keys are an HMAC under; null refuses seeds (no secret to use). */
  constructor(
    private readonly db: Db,
    private readonly serverSecret: string | null = null,
    /** Users one account may register (MUNINN_ACCOUNT_MAX_USERS; docs/limits-and-security.md, "Storage quota"). */
    private readonly maxUsers = Number.MAX_SAFE_INTEGER,
  ) {}

  private keyFor(accountId: string, userId: string, seed: string | undefined): string {
    if (seed === undefined) return newUserKey(accountId, userId);
    if (!this.serverSecret) {
      throw new KernelError(
        KernelErrorCode.FailedPrecondition,
        'Seeded keys need a server secret: set MUNINN_KEY_SECRET.',
      );
    }
    return newUserKey(accountId, userId, { seed, serverSecret: this.serverSecret });
  }

  /** Resolves a presented key to its owner and their account's suspension, or null. */
  async resolveKey(key: string): Promise<KeyOwnerRecord | null> {
    const { rows } = await this.db.query<
      UserRecord & Pick<AccountRow, 'suspended_at' | 'suspended_reason'> & { expires_at: Date | string | null }
    >(
      // The key's last use, to the minute, in the same statement: at most one row write per key and minute
      // (a gateway asks only when its key cache does not hold the key).
      `WITH used AS (
         UPDATE api_keys SET last_used_at = now()
         WHERE key_hash = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
       )
       SELECT u.account_id, u.user_id, u.role, u.created_at, a.suspended_at, a.suspended_reason, k.expires_at
       FROM api_keys k
       JOIN users u ON u.account_id = k.account_id AND u.user_id = k.user_id
       JOIN accounts a ON a.account_id = u.account_id
       WHERE k.key_hash = $1 AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [hashKey(key)],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      account_id: r.account_id,
      user_id: r.user_id,
      role: r.role,
      created_at: iso(r.created_at),
      suspended: suspensionOf(r),
      key_expires_at: isoOrNull(r.expires_at),
    };
  }

  /** Creates an account with its first admin; returns the admin's key (shown once). */
  async createAccount(
    accountId: string,
    adminUserId: string,
    seed: string | undefined,
    audit: AuditSink,
  ): Promise<{ account_id: string; admin_user_id: string; user_key: string }> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('INSERT INTO accounts (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [
        accountId,
      ]);
      if (rowCount === 0)
        throw new KernelError(KernelErrorCode.Conflict, `Account already exists: ${accountId}`, {
          account_id: accountId,
        });
      await tx.query(`INSERT INTO users (account_id, user_id, role) VALUES ($1, $2, 'admin')`, [
        accountId,
        adminUserId,
      ]);
      const key = this.keyFor(accountId, adminUserId, seed);
      await tx.query('INSERT INTO api_keys (key_hash, account_id, user_id) VALUES ($1, $2, $3)', [
        hashKey(key),
        accountId,
        adminUserId,
      ]);
      await insertAudit(tx, audit);
      return { account_id: accountId, admin_user_id: adminUserId, user_key: key };
    });
  }

  /** Accounts in id order, at most `limit` of them after the id `after` (keyset paging on the primary key). */
  async listAccounts(limit: number, after: string | null): Promise<AccountRecord[]> {
    const { rows } = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE ($1::text IS NULL OR a.account_id > $1)
       ORDER BY a.account_id LIMIT $2`,
      [after, limit],
    );
    return rows.map(toAccount);
  }

  async getAccount(accountId: string): Promise<AccountRecord> {
    const { rows } = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.account_id = $1`,
      [accountId],
    );
    if (!rows[0])
      throw new KernelError(KernelErrorCode.NotFound, `Account not found: ${accountId}`, { account_id: accountId });
    return toAccount(rows[0]);
  }

  /** The account's suspension, or null (in service, or no account row: dev mode's header accounts). */
  async accountSuspension(accountId: string): Promise<AccountSuspension | null> {
    const { rows } = await this.db.query<Pick<AccountRow, 'suspended_at' | 'suspended_reason'>>(
      'SELECT suspended_at, suspended_reason FROM accounts WHERE account_id = $1',
      [accountId],
    );
    return rows[0] ? suspensionOf(rows[0]) : null;
  }

  /**
   * Suspends the account (`reason` given: its first suspension time is kept, the reason replaced) or
   * resumes it (null), recording the change in `audit` in the same transaction; resuming an account in
   * service changes and records nothing. 404 for an unknown account. 409 while an import runs into the account
   * (its heartbeat newer than `abandonedImportMs`): the suspension is the import's, and deleting the account
   * cancels it. An import whose heartbeat stopped (its gateway died) is the operator's to decide: suspending or
   * resuming it takes it out of the abandoned-import sweep (its heartbeat is cleared), keeping what it wrote.
   */
  async setSuspension(
    accountId: string,
    reason: string | null,
    audit: AuditSink,
    abandonedImportMs = Number.MAX_SAFE_INTEGER,
  ): Promise<AccountRecord> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ suspended_at: Date | string | null; importing: boolean }>(
        `SELECT suspended_at, coalesce(suspended_reason = $2 AND import_heartbeat_at >= now() - $3 * interval '1 millisecond',
           false) AS importing
         FROM accounts WHERE account_id = $1 FOR UPDATE`,
        [accountId, IMPORT_SUSPENSION_REASON, abandonedImportMs],
      );
      if (!rows[0])
        throw new KernelError(KernelErrorCode.NotFound, `Account not found: ${accountId}`, { account_id: accountId });
      // The suspension is the running import's: lifted, the import wrote on under an account served meanwhile
      // and its end found nothing to lift. Deleting the account cancels the import.
      if (rows[0].importing)
        throw new KernelError(
          KernelErrorCode.Conflict,
          `Account ${accountId} is being imported: its suspension ends with the import; delete the account to cancel it`,
          { account_id: accountId, reason: 'import_in_progress' },
        );
      if (reason !== null || rows[0].suspended_at !== null) {
        await tx.query(
          `UPDATE accounts SET suspended_at = CASE WHEN $2::text IS NULL THEN NULL ELSE coalesce(suspended_at, now()) END,
             suspended_reason = $2, import_heartbeat_at = NULL, import_progress = NULL WHERE account_id = $1`,
          [accountId, reason],
        );
        await insertAudit(tx, audit);
      }
      const after = await tx.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.account_id = $1`, [
        accountId,
      ]);
      return toAccount(after.rows[0]);
    });
  }

  /**
   * The account's own limits (docs/limits-and-security.md, "Per-account limits"); none for an account
   * with no row (dev mode's header accounts).
   */
  accountLimits(accountId: string): Promise<AccountLimitOverrides> {
    return readOwnLimits(this.db, accountId);
  }

  /** Replaces the account's own limits (404 for an unknown account); `{}` gives it the deployment's. */
  async setAccountLimits(
    accountId: string,
    limits: AccountLimitOverrides,
    audit: AuditSink,
  ): Promise<AccountLimitOverrides> {
    const own = readLimitOverrides(limits);
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('UPDATE accounts SET limits = $2::jsonb WHERE account_id = $1', [
        accountId,
        JSON.stringify(own),
      ]);
      if (rowCount === 0)
        throw new KernelError(KernelErrorCode.NotFound, `Account not found: ${accountId}`, { account_id: accountId });
      await insertAudit(tx, audit);
      return own;
    });
  }

  /**
   * Deletes the account, its users, keys, content and sessions. With `only`, only while it is still held by an
   * import (else 404): one whose heartbeat is older than `abandonedImportMs` (an import that came back to life is
   * kept), or the import that suspended it at `importSince` (a failed import removes its own account, not one
   * made again under its id after it was deleted).
   */
  async deleteAccount(
    accountId: string,
    audit: AuditSink,
    only?: { abandonedImportMs: number } | { importSince: string },
  ): Promise<void> {
    const guard = !only
      ? ''
      : 'abandonedImportMs' in only
        ? ` AND ${abandonedImportSql(2)}`
        : ` AND ${importHeldSql(1)}`;
    const params = !only
      ? [accountId]
      : [accountId, 'abandonedImportMs' in only ? only.abandonedImportMs : only.importSince];
    // Every row of the tenant, while the indexer may update some of them: the tenant's row lock keeps the two
    // apart, and a deadlock victim (with any other writer) is still retried.
    await retryAborted(() =>
      this.db.transaction(async (tx) => {
        await lockTenantRows(tx, accountId);
        const { rowCount } = await tx.query(`DELETE FROM accounts WHERE account_id = $1${guard}`, params);
        if (rowCount === 0)
          throw new KernelError(KernelErrorCode.NotFound, `Account not found: ${accountId}`, { account_id: accountId });
        // Everything else keyed by the account goes with it (sessions take their messages, archives, tool results
        // and usage records by cascade): nothing of a deleted tenant stays behind, and a re-created account starts empty.
        for (const table of ACCOUNT_TABLES)
          await deleteInSteps(tx, table, 'account_id = $1', [accountId], stepOf(table));
        await insertAudit(tx, audit);
      }),
    );
  }

  async createUser(
    accountId: string,
    userId: string,
    role: UserRole,
    seed: string | undefined,
    audit: AuditSink,
  ): Promise<{ account_id: string; user_id: string; role: UserRole; user_key: string }> {
    await this.getAccount(accountId);
    return this.db.transaction(async (tx) => {
      // The account row's lock makes count-then-insert exact: concurrent registrations take turns.
      await tx.query('SELECT 1 FROM accounts WHERE account_id = $1 FOR UPDATE', [accountId]);
      await this.checkUsers(tx, accountId, userId);
      const { rowCount } = await tx.query(
        'INSERT INTO users (account_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [accountId, userId, role],
      );
      if (rowCount === 0)
        throw new KernelError(KernelErrorCode.Conflict, `User already exists: ${userId}`, {
          account_id: accountId,
          user_id: userId,
        });
      const key = this.keyFor(accountId, userId, seed);
      await tx.query('INSERT INTO api_keys (key_hash, account_id, user_id) VALUES ($1, $2, $3)', [
        hashKey(key),
        accountId,
        userId,
      ]);
      await insertAudit(tx, audit);
      return { account_id: accountId, user_id: userId, role, user_key: key };
    });
  }

  /** 413 when the account already holds `maxUsers` users; an existing user id is left to the insert's 409. */
  private async checkUsers(tx: Pick<Db, 'query'>, accountId: string, userId: string): Promise<void> {
    const { rows } = await tx.query<{ n: number; exists: boolean }>(
      `SELECT count(*)::int AS n, bool_or(user_id = $2) AS exists FROM users WHERE account_id = $1`,
      [accountId, userId],
    );
    const { n, exists } = rows[0]!;
    if (exists) return;
    const own = await readOwnLimits(tx, accountId);
    const max = own.max_users ?? this.maxUsers;
    if (n < max) return;
    const what = `the account holds ${n} users, its most (${limitSource('max_users', own)}); delete one first`;
    throw quotaExceeded(what, 'account_users', max, n, 1);
  }

  async listUsers(accountId: string): Promise<UserRecord[]> {
    await this.getAccount(accountId);
    const { rows } = await this.db.query<UserRecord>(
      'SELECT account_id, user_id, role, created_at FROM users WHERE account_id = $1 ORDER BY user_id',
      [accountId],
    );
    return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
  }

  async getUser(accountId: string, userId: string): Promise<UserRecord> {
    const { rows } = await this.db.query<UserRecord>(
      'SELECT account_id, user_id, role, created_at FROM users WHERE account_id = $1 AND user_id = $2',
      [accountId, userId],
    );
    if (!rows[0])
      throw new KernelError(KernelErrorCode.NotFound, `User not found: ${userId}`, {
        account_id: accountId,
        user_id: userId,
      });
    return { ...rows[0], created_at: iso(rows[0].created_at) };
  }

  /** The user's keys, newest first: when each was made, when it stops (a kept key) and when it was last used. */
  async userKeys(accountId: string, userId: string): Promise<UserKeyRecord[]> {
    const { rows } = await this.db.query<{ created_at: Date | string; expires_at: unknown; last_used_at: unknown }>(
      `SELECT created_at, expires_at, last_used_at FROM api_keys
       WHERE account_id = $1 AND user_id = $2 AND (expires_at IS NULL OR expires_at > now())
       ORDER BY created_at DESC`,
      [accountId, userId],
    );
    return rows.map((r) => ({
      created_at: iso(r.created_at),
      expires_at: isoOrNull(r.expires_at),
      last_used_at: isoOrNull(r.last_used_at),
    }));
  }

  /** Stops the key a rotation kept, now (404 when the user holds none still working). */
  async revokePreviousKey(accountId: string, userId: string, audit: AuditSink): Promise<void> {
    await this.db.transaction(async (tx) => {
      // An expired key is deleted too but counts as none: it had already stopped.
      const { rows } = await tx.query<{ live: boolean }>(
        `DELETE FROM api_keys WHERE account_id = $1 AND user_id = $2 AND expires_at IS NOT NULL
         RETURNING expires_at > now() AS live`,
        [accountId, userId],
      );
      if (!rows.some((r) => r.live))
        throw new KernelError(KernelErrorCode.NotFound, `User ${userId} holds no kept previous key`, {
          account_id: accountId,
          user_id: userId,
        });
      await insertAudit(tx, audit);
    });
  }

  /** Deletes a user with their keys, private content and sessions. */
  async deleteUser(accountId: string, userId: string, audit: AuditSink): Promise<void> {
    // Every row of the user, while the indexer may update some of them: the tenant's row lock keeps the two
    // apart, and a deadlock victim (with any other writer) is still retried.
    await retryAborted(() => this.doDeleteUser(accountId, userId, audit));
  }

  private async doDeleteUser(accountId: string, userId: string, audit: AuditSink): Promise<void> {
    await this.db.transaction(async (tx) => {
      await lockTenantRows(tx, accountId);
      const { rowCount } = await tx.query('DELETE FROM users WHERE account_id = $1 AND user_id = $2', [
        accountId,
        userId,
      ]);
      if (rowCount === 0)
        throw new KernelError(KernelErrorCode.NotFound, `User not found: ${userId}`, {
          account_id: accountId,
          user_id: userId,
        });
      const mine = [accountId, userId];
      await deleteInSteps(tx, 'nodes', 'account_id = $1 AND owner_user_id = $2', mine, stepOf('nodes'));
      await deleteInSteps(tx, 'sessions', 'account_id = $1 AND user_id = $2', mine, stepOf('sessions'));
      await deleteInSteps(
        tx,
        'session_archive_marks',
        'account_id = $1 AND user_id = $2',
        mine,
        stepOf('session_archive_marks'),
      );
      await deleteInSteps(tx, 'session_tasks', 'account_id = $1 AND user_id = $2', mine, stepOf('session_tasks'));
      await deleteInSteps(tx, 'upload_tokens', 'account_id = $1 AND user_id = $2', mine, stepOf('upload_tokens'));
      await deleteInSteps(tx, 'idempotency_keys', 'account_id = $1 AND user_id = $2', mine, stepOf('idempotency_keys'));
      // The user's own nodes are gone, so their owner view's term counts net to zero: drop the rows, which no
      // reader would ever compact (docs/architecture.md, "Performance"). And the summary state of their folders.
      await deleteInSteps(tx, 'term_df', 'account_id = $1 AND owner_id = $2', mine, stepOf('term_df'));
      const root = userRoot(userId);
      await deleteInSteps(
        tx,
        'sidecar_state',
        'account_id = $1 AND (uri = $2 OR starts_with(uri, $3))',
        [accountId, root, `${root}/`],
        stepOf('sidecar_state'),
      );
      await insertAudit(tx, audit);
    });
  }

  async setRole(accountId: string, userId: string, role: UserRole, audit: AuditSink): Promise<UserRecord> {
    await this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('UPDATE users SET role = $3 WHERE account_id = $1 AND user_id = $2', [
        accountId,
        userId,
        role,
      ]);
      if (rowCount === 0)
        throw new KernelError(KernelErrorCode.NotFound, `User not found: ${userId}`, {
          account_id: accountId,
          user_id: userId,
        });
      await insertAudit(tx, audit);
    });
    return this.getUser(accountId, userId);
  }

  /** Replaces every key of a user with a new one; old keys stop working at once. */
  /**
   * Gives the user a new key. The key in use until now stops at once, or, with `previousValidS` > 0,
   * keeps working that many seconds more so agents can move to the new one; a key an earlier rotation
   * kept stops at once either way, so a user holds at most two keys.
   */
  async rotateKey(
    accountId: string,
    userId: string,
    seed: string | undefined,
    previousValidS: number,
    audit: AuditSink,
  ): Promise<{ account_id: string; user_id: string; user_key: string; previous_key_expires_at: string | null }> {
    await this.getUser(accountId, userId);
    const key = this.keyFor(accountId, userId, seed);
    const kept = await this.db.transaction(async (tx) => {
      const mine = [accountId, userId];
      await tx.query('DELETE FROM api_keys WHERE account_id = $1 AND user_id = $2 AND expires_at IS NOT NULL', mine);
      let until: string | null = null;
      if (previousValidS > 0) {
        const { rows } = await tx.query<{ expires_at: Date | string }>(
          `UPDATE api_keys SET expires_at = now() + $3 * interval '1 second'
           WHERE account_id = $1 AND user_id = $2 RETURNING expires_at`,
          [...mine, previousValidS],
        );
        until = rows[0] ? iso(rows[0].expires_at) : null;
      } else await tx.query('DELETE FROM api_keys WHERE account_id = $1 AND user_id = $2', mine);
      // A seed that gives the key already held makes the same hash: it is the new key, with no expiry.
      await tx.query(
        `INSERT INTO api_keys (key_hash, account_id, user_id) VALUES ($1, $2, $3)
         ON CONFLICT (key_hash) DO UPDATE SET expires_at = NULL`,
        [hashKey(key), ...mine],
      );
      await insertAudit(tx, audit);
      return until;
    });
    return { account_id: accountId, user_id: userId, user_key: key, previous_key_expires_at: kept };
  }
}

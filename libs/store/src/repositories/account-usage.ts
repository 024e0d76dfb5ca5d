import { AccountLimitOverrides, KernelError, KernelErrorCode, limitSource, readLimitOverrides } from '@app/kernel';
import { Db } from '../db/db.port';

type Tx = Pick<Db, 'query'>;

/** What one account may store (docs/limits-and-security.md, "Storage quota"). */
export interface AccountQuota {
  /** Files and directories. */
  maxNodes: number;
  /** UTF-8 bytes of file content. */
  maxContentBytes: number;
}

export interface AccountUsage {
  nodes: number;
  contentBytes: number;
}

/** An account whose usage is spread over more delta rows than this has them folded by the next check. */
export const USAGE_COMPACT_ROWS = 64;

/**
 * The account's usage as this transaction sees it (its own writes included), and its own limits
 * (docs/limits-and-security.md, "Per-account limits"): one statement, two index lookups.
 */
export async function readUsage(
  tx: Tx,
  accountId: string,
): Promise<AccountUsage & { rows: number; own: AccountLimitOverrides }> {
  const { rows } = await tx.query<{ nodes: string | null; content_bytes: string | null; rows: number; own: unknown }>(
    `SELECT sum(nodes) AS nodes, sum(content_bytes) AS content_bytes, count(*)::int AS rows,
            (SELECT limits FROM accounts WHERE account_id = $1) AS own
     FROM account_usage WHERE account_id = $1`,
    [accountId],
  );
  const r = rows[0];
  return {
    nodes: Number(r?.nodes ?? 0),
    contentBytes: Number(r?.content_bytes ?? 0),
    rows: r?.rows ?? 0,
    own: readLimitOverrides(r?.own),
  };
}

/** The account's own limits (docs/limits-and-security.md, "Per-account limits"): one primary-key lookup. */
export async function readOwnLimits(tx: Tx, accountId: string): Promise<AccountLimitOverrides> {
  const { rows } = await tx.query<{ limits: unknown }>('SELECT limits FROM accounts WHERE account_id = $1', [
    accountId,
  ]);
  return readLimitOverrides(rows[0]?.limits);
}

/** The quota that applies to an account: its own values where it has them (an override names itself). */
function accountQuota(
  quota: AccountQuota,
  own: AccountLimitOverrides,
): AccountQuota & { nodesFrom: string; bytesFrom: string } {
  return {
    maxNodes: own.max_nodes ?? quota.maxNodes,
    maxContentBytes: own.max_content_bytes ?? quota.maxContentBytes,
    nodesFrom: limitSource('max_nodes', own),
    bytesFrom: limitSource('max_content_bytes', own),
  };
}

/**
 * Refuses (413, PAYLOAD_TOO_LARGE) a transaction that grew an account past its quota: call it after the
 * writes, with what they added. Writes that add nothing (or free space) always pass, so an account over
 * its quota (a lowered limit) can still delete, shrink and move. Two concurrent writes can each pass
 * with the other's rows not yet visible, so the quota can be exceeded by one write's worth per writer.
 */
export async function enforceQuota(
  tx: Tx,
  accountId: string,
  deployment: AccountQuota | undefined,
  added: AccountUsage,
): Promise<void> {
  if (!deployment || (added.nodes <= 0 && added.contentBytes <= 0)) return;
  const usage = await readUsage(tx, accountId);
  if (usage.rows > USAGE_COMPACT_ROWS) await compactUsage(tx, accountId);
  const quota = accountQuota(deployment, usage.own);
  if (added.nodes > 0 && usage.nodes > quota.maxNodes) {
    const what = `this write would make ${usage.nodes} files and directories, more than the account's ${quota.maxNodes} (${quota.nodesFrom})`;
    throw quotaExceeded(what, 'account_nodes', quota.maxNodes, usage.nodes - added.nodes, added.nodes);
  }
  if (added.contentBytes > 0 && usage.contentBytes > quota.maxContentBytes) {
    const what = `this write would make ${usage.contentBytes} bytes of content, more than the account's ${quota.maxContentBytes} (${quota.bytesFrom})`;
    const used = usage.contentBytes - added.contentBytes;
    throw quotaExceeded(what, 'account_content_bytes', quota.maxContentBytes, used, added.contentBytes);
  }
}

/** The one shape of every storage-quota refusal: 413 naming the limit, with the account's figures. */
export function quotaExceeded(
  what: string,
  limit: 'account_nodes' | 'account_content_bytes' | 'account_sessions' | 'account_users',
  max: number,
  used: number,
  requested: number,
): KernelError {
  return new KernelError(KernelErrorCode.PayloadTooLarge, `account storage quota exceeded: ${what}`, {
    limit,
    max,
    used,
    requested,
  });
}

/**
 * Folds an account's delta rows into one, in one statement of the caller's transaction. Writers only
 * insert, so they are never blocked; the advisory lock keeps two folds of one account apart (the second
 * skips).
 */
export async function compactUsage(tx: Tx, accountId: string): Promise<number> {
  const { rows } = await tx.query<{ folded: number }>(
    `WITH lock AS (SELECT pg_try_advisory_xact_lock(4242093, hashtext($1)) AS ok),
          d AS (DELETE FROM account_usage WHERE account_id = $1 AND (SELECT ok FROM lock)
                RETURNING nodes, content_bytes),
          i AS (INSERT INTO account_usage (account_id, nodes, content_bytes)
                SELECT $1, sum(nodes), sum(content_bytes) FROM d HAVING count(*) > 0)
     SELECT count(*)::int AS folded FROM d`,
    [accountId],
  );
  return rows[0]?.folded ?? 0;
}

import { IndexJob } from '@app/contracts';
import {
  AccountLimitOverrides,
  estimateTokens,
  Identity,
  ImportArchiveLine,
  ImportMessageLine,
  ImportNodeLine,
  ImportSessionLine,
  ImportToolResultLine,
  ImportUsageLine,
  KernelError,
  KernelErrorCode,
  messageTokens,
  SessionMessage,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { enforceQuota } from './account-usage';
import { AuditSink, insertAudit } from './audit.repository';
import { hashKey, ImportProgress, newUserKey, UserRole } from './identity.repository';
import { abandonedImportSql, IMPORT_SUSPENSION_REASON, importHeldSql } from './import-suspension';
import { ensureDirectories, writeNodes, WriteOptions } from './node-write';
import { insertOutbox } from './outbox';
import { idleCheckAfter } from './session-idle-check.repository';
import { keepThresholdDue } from './session-threshold-due';

export { IMPORT_SUSPENSION_REASON } from './import-suspension';

/**
 * 409 for an account id in use; when it is held by an import (running, or stopped with its gateway), the
 * answer says so, since a retried import otherwise cannot tell that case from a name clash.
 */
async function accountInUse(tx: Pick<Db, 'query'>, accountId: string): Promise<KernelError> {
  const { rows } = await tx.query<{ suspended_reason: string | null }>(
    'SELECT suspended_reason FROM accounts WHERE account_id = $1',
    [accountId],
  );
  if (rows[0]?.suspended_reason === IMPORT_SUSPENSION_REASON)
    return new KernelError(
      KernelErrorCode.Conflict,
      `Account ${accountId} is being imported, or its import stopped with its gateway: an abandoned import is ` +
        'removed once its heartbeat is overdue (MUNINN_IMPORT_ABANDON_S), or delete it; then import again',
      { account_id: accountId, reason: 'import_in_progress' },
    );
  return new KernelError(KernelErrorCode.Conflict, `Account already exists: ${accountId}`, { account_id: accountId });
}

/**
 * The import that holds an account: its id and when the import suspended it (the `suspended_at` its `begin` wrote).
 * An account deleted while its import ran, and perhaps made again by another import, is no longer this import's:
 * every write, heartbeat and the finish check the claim, and the removal of a failed import takes only its own.
 */
export interface ImportClaim {
  accountId: string;
  since: string;
}

/** 409 for an import whose account was deleted (or made again) while it ran. */
export function importCancelled(accountId: string): KernelError {
  return new KernelError(
    KernelErrorCode.Conflict,
    `The import of account ${accountId} was cancelled while it ran: the account was deleted`,
    { account_id: accountId, reason: 'import_cancelled' },
  );
}

/**
 * Holds the account row (FOR KEY SHARE: the heartbeat's update does not wait for it) while `tx` writes the import's batch, or throws {@link importCancelled}: an
 * account deletion waits for the batch and then takes it too, and a batch after the deletion writes nothing (an
 * import went on writing under a deleted account, rows a later account of that id inherited).
 */
async function holdImport(tx: Pick<Db, 'query'>, claim: ImportClaim): Promise<void> {
  const { rows } = await tx.query(`SELECT 1 FROM accounts WHERE ${importHeldSql(1)} FOR KEY SHARE`, [
    claim.accountId,
    claim.since,
  ]);
  if (rows.length === 0) throw importCancelled(claim.accountId);
}

/** What a session's import added up, for the session row written once its last line is in. */
export interface ImportedSessionTally {
  archivedMessages: number;
  liveMessages: number;
  lastSeq: number;
  pendingTokens: number;
  lastMessageAt: string | null;
  highestArchive: number;
}

/**
 * Writes an account export back in (docs/limits-and-security.md, "Importing an account"), a batch at a
 * time, each batch its own transaction with the store's statement timeout: the account is created
 * suspended with its users (new keys) and own limits, nodes are written as file writes are (outbox
 * entries, so indexing rebuilds embeddings and summaries; the storage quota applies) with their times
 * kept, sessions with their archives and live messages. `finish` lifts the suspension. A failed import
 * is removed by the caller (deleting the account).
 */
export class AccountImportRepository {
  constructor(
    private readonly db: Db,
    private readonly options: WriteOptions,
  ) {}

  /**
   * Creates the account (409 when it exists), suspended, with the users and their new keys and its own
   * limits (as `readLimitOverrides` keeps them).
   */
  async begin(
    accountId: string,
    users: { user_id: string; role: UserRole }[],
    own: AccountLimitOverrides,
    audit: AuditSink,
  ): Promise<{ claim: ImportClaim; users: { user_id: string; role: UserRole; user_key: string }[] }> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ since: string }>(
        `INSERT INTO accounts (account_id, suspended_at, suspended_reason, limits, import_heartbeat_at)
         VALUES ($1, now(), $2, $3::jsonb, now()) ON CONFLICT DO NOTHING RETURNING suspended_at::text AS since`,
        [accountId, IMPORT_SUSPENSION_REASON, JSON.stringify(own)],
      );
      if (rows.length === 0) throw await accountInUse(tx, accountId);
      const out = users.map((u) => ({ ...u, user_key: newUserKey(accountId, u.user_id) }));
      if (out.length > 0) {
        await tx.query(
          'INSERT INTO users (account_id, user_id, role) SELECT $1, u.id, u.role FROM unnest($2::text[], $3::text[]) AS u(id, role)',
          [accountId, out.map((u) => u.user_id), out.map((u) => u.role)],
        );
        await tx.query(
          'INSERT INTO api_keys (key_hash, account_id, user_id) SELECT k, $1, u FROM unnest($2::text[], $3::text[]) AS x(k, u)',
          [accountId, out.map((u) => hashKey(u.user_key)), out.map((u) => u.user_id)],
        );
      }
      await insertAudit(tx, audit);
      return { claim: { accountId, since: rows[0].since }, users: out };
    });
  }

  /**
   * Writes a batch of node lines (files created with their tags, directories made; both keep their
   * times) in one transaction; returns the outbox entries to dispatch.
   */
  async writeNodes(claim: ImportClaim, nodes: ImportNodeLine[]): Promise<IndexJob[]> {
    const { accountId } = claim;
    const importer: Identity = { accountId, userId: '_import', role: 'root', actorPeerId: null };
    return this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      const jobs: IndexJob[] = [];
      const dirs = await ensureDirectories(
        tx,
        importer,
        nodes.filter((n) => n.kind === 'directory').map((n) => n.uri),
      );
      if (dirs.length > 0) jobs.push(await insertOutbox(tx, accountId, 'upsert', dirs, this.options.graceMs));
      const files = nodes.filter((n) => n.kind === 'file');
      if (files.length > 0) {
        const out = await writeNodes(
          tx,
          importer,
          files.map((f) => ({ uri: f.uri, content: f.content ?? '', mode: 'create' as const, tags: f.tags })),
          // Not the file bound: the line bound holds the file already, and a file stored before the bound (or under a
          // larger one) is restored as it was.
          { ...this.options, maxFileBytes: undefined },
        );
        if (out.index) jobs.push(out.index);
      }
      await tx.query(
        `UPDATE nodes n SET created_at = u.c::timestamptz, updated_at = u.m::timestamptz, tags = CASE WHEN n.kind = 'directory'
           THEN ARRAY(SELECT jsonb_array_elements_text(u.t::jsonb)) ELSE n.tags END,
           description = CASE WHEN n.kind = 'directory' THEN u.d END, abstract = coalesce(u.d, n.abstract)
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(uri, c, m, t, d)
         WHERE n.account_id = $1 AND n.uri = u.uri`,
        [
          accountId,
          nodes.map((n) => n.uri),
          nodes.map((n) => n.created_at),
          nodes.map((n) => n.updated_at),
          nodes.map((n) => JSON.stringify(n.tags)),
          nodes.map((n) => n.description ?? null),
        ],
      );
      return jobs;
    });
  }

  /** Creates the session row (its counters are written by `closeSession`); false when it exists already. */
  async openSession(claim: ImportClaim, s: ImportSessionLine): Promise<boolean> {
    const { accountId } = claim;
    return this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      const { rowCount } = await tx.query(
        `INSERT INTO sessions (account_id, user_id, session_id, created_at, updated_at, commit_count, event_tags,
         auto_commit_policy, memory_policy, retention_mode, keep_recent_count, keep_recent_turn_count,
         retained_message_token_budget, min_raw_tail_steps, last_commit_at, last_auto_commit_at, memories_extracted,
         llm_token_usage)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18::jsonb)
       ON CONFLICT DO NOTHING`,
        [
          accountId,
          s.user_id,
          s.session_id,
          s.created_at,
          s.updated_at,
          s.commit_count,
          s.event_tags,
          s.auto_commit_policy === null ? null : JSON.stringify(s.auto_commit_policy),
          s.memory_policy === null ? null : JSON.stringify(s.memory_policy),
          s.retention_mode,
          s.keep_recent_count,
          s.keep_recent_turn_count,
          s.retained_message_token_budget,
          s.min_raw_tail_steps,
          s.last_commit_at,
          s.last_auto_commit_at,
          JSON.stringify(s.memories_extracted),
          JSON.stringify(s.llm_token_usage),
        ],
      );
      return rowCount === 1;
    });
  }

  /**
   * One archive as it was. An archive whose extraction had not ended when it was exported is kept as
   * failed, naming why: no task of this deployment will extract it (its messages are kept, and the
   * memories extracted before the export came in as files).
   */
  async writeArchive(claim: ImportClaim, a: ImportArchiveLine): Promise<void> {
    const { accountId } = claim;
    const pending = a.status === 'pending';
    const messages = JSON.stringify(a.messages);
    await this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      await tx.query(
        `INSERT INTO session_archives (account_id, user_id, session_id, archive_index, status, messages, overview,
           abstract, overview_tokens, error, task_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, '', $11, $11)`,
        [
          accountId,
          a.user_id,
          a.session_id,
          a.archive_index,
          pending ? 'failed' : a.status,
          messages,
          a.overview,
          a.abstract,
          estimateTokens(a.overview),
          pending ? 'imported before its extraction ended: not extracted' : null,
          a.created_at,
        ],
      );
      const bytes = Buffer.byteLength(messages, 'utf8');
      await enforceQuota(tx, accountId, this.options.quota, { nodes: 0, contentBytes: bytes });
    });
  }

  /** A batch of one session's live messages, within the storage quota; returns their token estimate. */
  async writeMessages(claim: ImportClaim, msgs: ImportMessageLine[]): Promise<number> {
    const { accountId } = claim;
    const tokens = msgs.map((m) =>
      m.parts ? messageTokens({ parts: m.parts as SessionMessage['parts'] }) : estimateTokens(m.content),
    );
    await this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      const { rows } = await tx.query<{ bytes: string }>(
        `WITH ins AS (
           INSERT INTO messages (account_id, user_id, session_id, seq, message_id, role, content, parts, extra, tokens,
             created_at)
           SELECT $1, $2, $3, u.seq, u.id, u.role, u.content, u.parts::jsonb, u.extra::jsonb, u.tokens, u.at::timestamptz
           FROM unnest($4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::text[])
             AS u(seq, id, role, content, parts, extra, tokens, at)
           RETURNING message_bytes(content, parts, extra) AS bytes)
         SELECT coalesce(sum(bytes), 0)::text AS bytes FROM ins`,
        [
          accountId,
          msgs[0].user_id,
          msgs[0].session_id,
          msgs.map((m) => m.seq),
          msgs.map((m) => m.message_id),
          msgs.map((m) => m.role),
          msgs.map((m) => m.content),
          msgs.map((m) => (m.parts ? JSON.stringify(m.parts) : null)),
          msgs.map((m) => JSON.stringify(m.extra)),
          tokens,
          msgs.map((m) => m.created_at),
        ],
      );
      await enforceQuota(tx, accountId, this.options.quota, { nodes: 0, contentBytes: Number(rows[0].bytes) });
    });
    return tokens.reduce((a, b) => a + b, 0);
  }

  /** A session's tool-result record, as it was (its output is a file, among the nodes); false when listed twice. */
  async writeToolResult(claim: ImportClaim, t: ImportToolResultLine): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      const { rowCount } = await tx.query(
        `INSERT INTO session_tool_results (account_id, user_id, session_id, tool_result_id, tool_id, tool_name,
           message_id, mime_type, original_chars, preview_chars, sha256, reason, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
        [
          claim.accountId,
          t.user_id,
          t.session_id,
          t.tool_result_id,
          t.tool_id,
          t.tool_name,
          t.message_id,
          t.mime_type,
          t.original_chars,
          t.preview_chars,
          t.sha256,
          t.reason,
          t.created_at,
        ],
      );
      return rowCount === 1;
    });
  }

  /** A usage record no commit has consumed yet, within the storage quota (the records count in the account usage). */
  async writeUsage(claim: ImportClaim, u: ImportUsageLine): Promise<void> {
    await this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      const { rows } = await tx.query<{ bytes: string }>(
        `INSERT INTO session_usage (account_id, user_id, session_id, kind, uri, skill, created_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) RETURNING usage_record_bytes(uri, skill)::text AS bytes`,
        [
          claim.accountId,
          u.user_id,
          u.session_id,
          u.kind,
          u.uri,
          u.skill === null ? null : JSON.stringify(u.skill),
          u.created_at,
        ],
      );
      await enforceQuota(tx, claim.accountId, this.options.quota, { nodes: 0, contentBytes: Number(rows[0].bytes) });
    });
  }

  /** The session's counters from what its lines held: the message clock, pending tokens, archive mark. */
  async closeSession(claim: ImportClaim, s: ImportSessionLine, t: ImportedSessionTally): Promise<void> {
    const { accountId } = claim;
    const owner = [accountId, s.user_id, s.session_id];
    await this.db.transaction(async (tx) => {
      await holdImport(tx, claim);
      await tx.query(
        `UPDATE sessions SET total_message_count = $4, pending_tokens = $5, last_message_at = $6::timestamptz,
           updated_at = $7::timestamptz,
           idle_check_at = CASE WHEN $8::boolean THEN ${idleCheckAfter('$6::timestamptz')} END
         WHERE account_id = $1 AND user_id = $2 AND session_id = $3`,
        [
          ...owner,
          Math.max(t.lastSeq, t.archivedMessages + t.liveMessages),
          t.pendingTokens,
          t.lastMessageAt,
          s.updated_at,
          // Live messages, whatever their tokens (kept by a commit's window, or of no text): an idle commit takes them.
          t.liveMessages > 0,
        ],
      );
      // An imported session over its policy's threshold is committed by the idle relay, not at its next message.
      // Without a policy nothing can be due: no read of the session for the many sessions of a large import.
      if (s.auto_commit_policy) await keepThresholdDue(tx, { accountId, userId: s.user_id }, s.session_id);
      const mark = Math.max(t.highestArchive, s.commit_count);
      if (mark > 0)
        await tx.query(
          `INSERT INTO session_archive_marks (account_id, user_id, session_id, highest_index) VALUES ($1, $2, $3, $4)
           ON CONFLICT (account_id, user_id, session_id) DO UPDATE SET highest_index = excluded.highest_index`,
          [...owner, mark],
        );
    });
  }

  /** Lifts the import's suspension (the import was recorded in the trail when it began); 409 when it was cancelled. */
  async finish(claim: ImportClaim): Promise<void> {
    const { rowCount } = await this.db.query(
      `UPDATE accounts SET suspended_at = NULL, suspended_reason = NULL, import_heartbeat_at = NULL, import_progress = NULL
       WHERE ${importHeldSql(1)}`,
      [claim.accountId, claim.since],
    );
    if (rowCount === 0) throw importCancelled(claim.accountId);
  }

  /** The running import's sign of life and how far it got (its gateway calls it while the body streams in). */
  async heartbeat(claim: ImportClaim, progress: Omit<ImportProgress, 'heartbeat_at'>): Promise<void> {
    await this.db.query(
      `UPDATE accounts SET import_heartbeat_at = now(), import_progress = $3::jsonb WHERE ${importHeldSql(1)}`,
      [claim.accountId, claim.since, JSON.stringify(progress)],
    );
  }

  /** Accounts still held by an import whose heartbeat is older than `staleMs` (its gateway stopped), at most `limit`. */
  async abandoned(staleMs: number, limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ account_id: string }>(
      `SELECT account_id FROM accounts WHERE ${abandonedImportSql(1)} ORDER BY account_id LIMIT ${limit}`,
      [staleMs],
    );
    return rows.map((r) => r.account_id);
  }
}

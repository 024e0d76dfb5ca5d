import { randomUUID } from 'node:crypto';
import {
  assertSessionId,
  Identity,
  KernelError,
  KernelErrorCode,
  limitSource,
  planTurnRetentionOfTail,
  SessionMessage,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { AccountQuota, enforceQuota, quotaExceeded, readOwnLimits } from './account-usage';
import { retentionMessage } from './session-archive.repository';
import { idleCheckAfter } from './session-idle-check.repository';
import { deleteSessionFiles } from './session-files';
import { keepThresholdDue } from './session-threshold-due';
import { insertToolResults, NewToolResult } from './session-tool-result.repository';
import {
  MESSAGE_COLUMNS,
  MessageRow,
  SESSION_SELECT,
  SessionRecord,
  SessionRow,
  toSessionMessage,
  toSessionRecord,
} from './session-rows';

export { commitStateOf, type SessionRecord } from './session-rows';

export interface MessageRecord {
  id: string;
  role: string;
  content: string;
  parts: unknown[] | null;
  created_at: string;
}

/** A message to append: its parts, readable text, token estimate and the client's optional fields. */
export interface NewMessage {
  role: string;
  content: string;
  parts?: unknown[] | null;
  tokens?: number;
  extra?: Record<string, unknown>;
  /** A caller-made id (`msg_` + 32 hex); otherwise one is made here. */
  id?: string;
  /** Externalised tool outputs whose previews this message carries, stored in the same transaction. */
  toolResults?: NewToolResult[];
}

/** Initial settings of a created session. */
export interface SessionSettings {
  autoCommitPolicy?: unknown;
  eventTags?: string[];
  /** Normalised memory policy; null/undefined: the default. */
  memoryPolicy?: unknown;
}

const notFound = (sessionId: string) =>
  new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
    type: 'session',
    resource: sessionId,
  });

/** How much not yet committed one session may hold (`MUNINN_SESSION_MAX_LIVE_MESSAGES`, `…_TOKENS`). */
export interface LiveBounds {
  maxLiveMessages: number;
  maxLiveTokens: number;
}

/**
 * What one account may keep in sessions (docs/limits-and-security.md, "Storage quota"): at most `maxSessions`
 * sessions (MUNINN_ACCOUNT_MAX_SESSIONS), and live messages count toward the content bytes of its quota.
 */
export interface SessionQuota extends AccountQuota {
  maxSessions: number;
}

/** Newest live messages a turn-budget session's pending figure reads first (docs/sessions.md). */
const TURN_TAIL_READ = 64;

/** Sessions and their live messages, always those of the calling user (the actor header never applies here). */
export class SessionRepository {
  private readonly maxSessions: number;

  constructor(
    private readonly db: Db,
    private readonly live: LiveBounds,
    private readonly quota?: SessionQuota,
  ) {
    this.maxSessions = quota?.maxSessions ?? Number.MAX_SAFE_INTEGER;
  }

  /** Creates a session (a fresh id unless one is given); an existing id is a conflict. */
  async create(identity: Identity, sessionId?: string, settings: SessionSettings = {}): Promise<SessionRecord> {
    const id = sessionId || randomUUID();
    if (await this.find(identity, id))
      throw new KernelError(KernelErrorCode.Conflict, `Session already exists: ${id}`, { session_id: id });
    const created = await this.insertWithinQuota(identity, id, settings);
    if (!created) throw new KernelError(KernelErrorCode.Conflict, `Session already exists: ${id}`, { session_id: id });
    return (await this.find(identity, id)) as SessionRecord;
  }

  /**
   * Inserts the session unless the account already holds `maxSessions` (413 naming the limit) or it exists
   * (false). The count runs only for a session that does not exist yet, over the primary key's account prefix.
   */
  private async insertWithinQuota(
    identity: Identity,
    id: string,
    settings: SessionSettings,
    q: Pick<Db, 'query'> = this.db,
  ): Promise<boolean> {
    // No session the routes could not address: it would be listed and counted but never read or deleted.
    assertSessionId(id);
    // The account's own bound where it has one (docs/limits-and-security.md, "Per-account limits").
    const own = await readOwnLimits(q, identity.accountId);
    const maxSessions = own.max_sessions ?? this.maxSessions;
    const { rows } = await q.query<{ inserted: number; held: number }>(
      `WITH held AS (SELECT count(*)::int AS n FROM sessions WHERE account_id = $1),
            ins AS (
              INSERT INTO sessions (account_id, user_id, session_id, auto_commit_policy, event_tags, memory_policy)
              SELECT $1, $2, $3, $4::jsonb, $5, $6::jsonb WHERE (SELECT n FROM held) < $7
              ON CONFLICT DO NOTHING RETURNING 1)
       SELECT (SELECT count(*)::int FROM ins) AS inserted, (SELECT n FROM held) AS held`,
      [
        identity.accountId,
        identity.userId,
        id,
        jsonOrNull(settings.autoCommitPolicy),
        settings.eventTags ?? [],
        jsonOrNull(settings.memoryPolicy),
        maxSessions,
      ],
    );
    const { inserted, held } = rows[0]!;
    if (inserted > 0) return true;
    if (held >= maxSessions) {
      const what = `the account holds ${held} sessions, its most (${limitSource('max_sessions', own)}); delete or reuse one`;
      throw quotaExceeded(what, 'account_sessions', maxSessions, held, 1);
    }
    return false;
  }

  /** Sessions the account holds, for `system/status` (its bound is the account's `max_sessions`). */
  async accountSessions(accountId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sessions WHERE account_id = $1',
      [accountId],
    );
    return rows[0]!.n;
  }

  /** The session, or null. */
  async find(identity: Identity, sessionId: string): Promise<SessionRecord | null> {
    const { rows } = await this.db.query<SessionRow>(
      `${SESSION_SELECT} WHERE s.account_id = $1 AND s.user_id = $2 AND s.session_id = $3`,
      [identity.accountId, identity.userId, sessionId],
    );
    return rows[0] ? toSessionRecord(identity, rows[0]) : null;
  }

  /** Gets or creates (materialises) the session; `settings` apply only when it is created. */
  async getOrCreate(
    identity: Identity,
    sessionId: string,
    settings: SessionSettings = {},
  ): Promise<{ session: SessionRecord; created: boolean }> {
    const existing = await this.find(identity, sessionId);
    if (existing) return { session: existing, created: false };
    const created = await this.insertWithinQuota(identity, sessionId, {
      autoCommitPolicy: settings.autoCommitPolicy,
      eventTags: settings.eventTags,
    });
    return { session: (await this.find(identity, sessionId)) as SessionRecord, created };
  }

  async list(identity: Identity, limit = 100): Promise<SessionRecord[]> {
    const { rows } = await this.db.query<SessionRow>(
      `${SESSION_SELECT} WHERE s.account_id = $1 AND s.user_id = $2 ORDER BY s.updated_at DESC LIMIT $3`,
      [identity.accountId, identity.userId, limit],
    );
    return rows.map((r) => toSessionRecord(identity, r));
  }

  /** Deletes the session, its live messages and archives (tasks and extracted memories stay). */
  async delete(identity: Identity, sessionId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        'DELETE FROM sessions WHERE account_id = $1 AND user_id = $2 AND session_id = $3',
        [identity.accountId, identity.userId, sessionId],
      );
      if (rowCount === 0) throw notFound(sessionId);
      await deleteSessionFiles(tx, identity, sessionId);
    });
  }

  /**
   * Replaces the policy and/or event tags (undefined: keep) and returns the session. A new policy on a session with
   * live messages (uncommitted, or kept by a commit's window: an idle commit archives those too) sets its idle
   * check's due time from its last message, and brings it forward to a
   * threshold commit the policy makes due, so the extractor's idle relay asks for the check the policy now wants
   * (docs/sessions.md, "Idle commits" and "Automatic commit").
   */
  async updateConfig(
    identity: Identity,
    sessionId: string,
    patch: { autoCommitPolicy?: (stored: unknown) => unknown; eventTags?: string[] },
  ): Promise<SessionRecord> {
    return this.db.transaction(async (tx) => {
      const { rows: locked } = await tx.query<{ auto_commit_policy: unknown }>(
        'SELECT auto_commit_policy FROM sessions WHERE account_id = $1 AND user_id = $2 AND session_id = $3 FOR UPDATE',
        [identity.accountId, identity.userId, sessionId],
      );
      if (!locked[0]) throw notFound(sessionId);
      const policy = patch.autoCommitPolicy?.(locked[0].auto_commit_policy ?? null);
      await tx.query(
        `UPDATE sessions SET updated_at = now(),
         auto_commit_policy = CASE WHEN $4 THEN $5::jsonb ELSE auto_commit_policy END,
         event_tags = COALESCE($6, event_tags),
         idle_check_at = CASE WHEN $4 AND last_message_at IS NOT NULL AND EXISTS (SELECT 1 FROM messages m
             WHERE m.account_id = sessions.account_id AND m.user_id = sessions.user_id AND m.session_id = sessions.session_id)
           THEN ${idleCheckAfter('last_message_at', '$5::jsonb')} ELSE idle_check_at END
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3`,
        [
          identity.accountId,
          identity.userId,
          sessionId,
          patch.autoCommitPolicy !== undefined,
          jsonOrNull(policy),
          patch.eventTags ?? null,
        ],
      );
      // The row is locked above: it is there.
      return (await keepThresholdDue(tx, identity, sessionId))!;
    });
  }

  /** Appends one message (see {@link addMessages}). */
  async addMessage(
    identity: Identity,
    sessionId: string,
    msg: NewMessage,
  ): Promise<{ message: MessageRecord; total_message_count: number }> {
    const r = await this.addMessages(identity, sessionId, [msg]);
    return { message: r.messages[0], total_message_count: r.session.total_message_count };
  }

  /**
   * Appends messages atomically (all or none) and advances the session's message counter (the
   * ledger's clock), `pending_tokens` and `last_message_at` in the same transaction. The messages and the
   * tool-result files they carry count toward the account's storage quota: an append that leaves the account
   * over it is refused whole (413 naming the limit).
   */
  async addMessages(
    identity: Identity,
    sessionId: string,
    msgs: NewMessage[],
    opts: { create?: SessionSettings } = {},
  ): Promise<{ messages: MessageRecord[]; session: SessionRecord }> {
    return this.db.transaction(async (tx) => {
      const tokens = msgs.reduce((n, m) => n + (m.tokens ?? 0), 0);
      const advance = () =>
        tx.query<{
          total_message_count: number;
          retention_mode: string;
          keep_recent_turn_count: number;
          retained_message_token_budget: number;
          min_raw_tail_steps: number;
        }>(
          `UPDATE sessions SET total_message_count = total_message_count + $4, pending_tokens = pending_tokens + $5,
             updated_at = now(), last_message_at = now(), idle_check_at = ${idleCheckAfter('now()')}
           WHERE account_id = $1 AND user_id = $2 AND session_id = $3
           RETURNING total_message_count, retention_mode, keep_recent_turn_count, retained_message_token_budget, min_raw_tail_steps`,
          [identity.accountId, identity.userId, sessionId, msgs.length, tokens],
        );
      let { rows } = await advance();
      // A missing session is made in the append's own transaction (`create`): a refused append (a bound, the
      // storage quota) leaves no empty session behind, and an append to an existing one costs no lookup first.
      if (!rows[0] && opts.create) {
        await this.insertWithinQuota(identity, sessionId, opts.create, tx);
        ({ rows } = await advance());
      }
      if (!rows[0]) throw notFound(sessionId);
      // The session row is locked now, so concurrent appends see each other's messages here.
      const live = await this.checkLive(tx, identity, sessionId, msgs.length, tokens);
      const first = rows[0].total_message_count - msgs.length + 1;
      const out: MessageRecord[] = [];
      const added = { nodes: 0, contentBytes: 0 };
      for (const [i, msg] of msgs.entries()) {
        const id = msg.id ?? `msg_${randomUUID().replace(/-/g, '')}`;
        // bytes: what the usage trigger counts for the row (message_bytes, migration 94).
        const ins = await tx.query<{ created_at: Date | string; bytes: string }>(
          `INSERT INTO messages (account_id, user_id, session_id, seq, message_id, role, content, parts, extra, tokens)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10)
           RETURNING created_at, message_bytes(content, parts, extra)::text AS bytes`,
          [
            identity.accountId,
            identity.userId,
            sessionId,
            first + i,
            id,
            msg.role,
            msg.content,
            msg.parts ? JSON.stringify(msg.parts) : null,
            JSON.stringify(msg.extra ?? {}),
            msg.tokens ?? 0,
          ],
        );
        added.contentBytes += Number(ins.rows[0].bytes);
        if (msg.toolResults?.length) {
          const results = msg.toolResults.map((r) => ({ ...r, messageId: id }));
          await insertToolResults(tx, identity, sessionId, results);
          added.nodes += results.length;
          for (const r of results) added.contentBytes += Buffer.byteLength(r.content, 'utf8');
        }
        out.push({
          id,
          role: msg.role,
          content: msg.content,
          parts: msg.parts ?? null,
          created_at: new Date(ins.rows[0].created_at).toISOString(),
        });
      }
      await enforceQuota(tx, identity.accountId, this.quota, added);
      if (rows[0].retention_mode === 'turn_budget') await this.turnPending(tx, identity, sessionId, live, rows[0]);
      const session = (await keepThresholdDue(tx, identity, sessionId))!;
      return { messages: out, session };
    });
  }

  /**
   * Refuses an append that would leave the session more uncommitted messages, or more of their tokens, than the
   * bounds (docs/sessions.md, "Bounds"): a commit archives every live message in one statement and the extractor
   * reads them all, so a session posted to for ever without a commit could not be committed at all (20,000
   * messages of ~475 tokens took 6.6 s to archive and 588 MB of extractor memory).
   */
  private async checkLive(
    tx: Pick<Db, 'query'>,
    identity: Identity,
    sessionId: string,
    adding: number,
    addingTokens: number,
  ): Promise<{ messages: number; tokens: number }> {
    const { rows } = await tx.query<{ n: number; t: string }>(
      `SELECT count(*)::int AS n, coalesce(sum(tokens), 0)::text AS t FROM messages
        WHERE account_id = $1 AND user_id = $2 AND session_id = $3`,
      [identity.accountId, identity.userId, sessionId],
    );
    const messages = rows[0]!.n + adding;
    const tokens = Number(rows[0]!.t) + addingTokens;
    const { maxLiveMessages, maxLiveTokens } = this.live;
    if (messages <= maxLiveMessages && tokens <= maxLiveTokens) return { messages, tokens };
    const over =
      messages > maxLiveMessages
        ? `${messages} messages (at most ${maxLiveMessages})`
        : `${tokens} tokens (at most ${maxLiveTokens})`;
    throw new KernelError(
      KernelErrorCode.PayloadTooLarge,
      `Session ${sessionId} would hold ${over} not yet committed: commit it first (POST /api/v1/sessions/${sessionId}/commit)`,
      {
        field: 'messages',
        live_messages: messages - adding,
        live_tokens: tokens - addingTokens,
        max_live_messages: maxLiveMessages,
        max_live_tokens: maxLiveTokens,
      },
    );
  }

  /**
   * Turn-budget mode: `pending_tokens` is what a commit with the remembered turn budget would archive
   * now, recomputed after each append from the newest messages only (`planTurnRetentionOfTail`): a tail of
   * TURN_TAIL_READ, four times longer while the plan keeps all of it. Reading every live message made each
   * append of a 9,000-message session cost 35 ms instead of 10, quadratic over its life.
   */
  private async turnPending(
    tx: Pick<Db, 'query'>,
    identity: Identity,
    sessionId: string,
    live: { messages: number; tokens: number },
    r: { keep_recent_turn_count: number; retained_message_token_budget: number; min_raw_tail_steps: number },
  ): Promise<void> {
    const budget = {
      turns: Number(r.keep_recent_turn_count),
      tokenBudget: Number(r.retained_message_token_budget),
      minTailSteps: Number(r.min_raw_tail_steps),
    };
    let plan: ReturnType<typeof planTurnRetentionOfTail> = null;
    for (let read = TURN_TAIL_READ; !plan; read *= 4) {
      const { rows } = await tx.query<{ role: string; extra: Record<string, unknown> | null; tokens: number }>(
        `SELECT role, extra, tokens FROM messages WHERE account_id = $1 AND user_id = $2 AND session_id = $3
          ORDER BY seq DESC LIMIT $4`,
        [identity.accountId, identity.userId, sessionId, read],
      );
      // Fewer rows than asked for: the tail is every live message, whatever the count said.
      const total = rows.length < read ? rows.length : live.messages;
      plan = planTurnRetentionOfTail(rows.reverse().map(retentionMessage), total, budget);
    }
    const pending = live.tokens - plan.retainedTokens;
    await tx.query(
      'UPDATE sessions SET pending_tokens = $4 WHERE account_id = $1 AND user_id = $2 AND session_id = $3',
      [identity.accountId, identity.userId, sessionId, pending],
    );
  }

  /** The last `n` live messages, oldest first. */
  async recentMessages(identity: Identity, sessionId: string, n = 20): Promise<MessageRecord[]> {
    const { rows } = await this.db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3 ORDER BY seq DESC LIMIT $4`,
      [identity.accountId, identity.userId, sessionId, n],
    );
    return rows.reverse().map((r) => ({
      id: r.message_id,
      role: r.role,
      content: r.content,
      parts: r.parts,
      created_at: new Date(r.created_at).toISOString(),
    }));
  }

  /** The live messages in their wire shape, oldest first (at most `limit`, the newest ones). */
  async liveMessages(identity: Identity, sessionId: string, limit = 10_000): Promise<SessionMessage[]> {
    const { rows } = await this.db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3 ORDER BY seq DESC LIMIT $4`,
      [identity.accountId, identity.userId, sessionId, limit],
    );
    return rows.reverse().map(toSessionMessage);
  }
}

function jsonOrNull(v: unknown): string | null {
  return v === undefined || v === null ? null : JSON.stringify(v);
}

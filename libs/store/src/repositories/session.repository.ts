import { randomUUID } from 'node:crypto';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { Db } from '../db/db.port';

export interface SessionRecord {
  session_id: string;
  uri: string;
  total_message_count: number;
  message_count: number;
  created_at: string;
  updated_at: string;
}

export interface MessageRecord {
  id: string;
  role: string;
  content: string;
  parts: unknown[] | null;
  created_at: string;
}

export interface NewMessage {
  role: string;
  content: string;
  parts?: unknown[] | null;
}

interface SessionRow {
  session_id: string;
  total_message_count: number;
  message_count: number;
  created_at: Date | string;
  updated_at: Date | string;
}

const SESSION_SELECT = `SELECT s.session_id, s.total_message_count, s.created_at, s.updated_at,
  (SELECT count(*)::int FROM messages m WHERE m.account_id = s.account_id AND m.user_id = s.user_id AND m.session_id = s.session_id) AS message_count
  FROM sessions s`;

/** Sessions and their messages, always those of the calling user (the actor header never applies here). */
export class SessionRepository {
  constructor(private readonly db: Db) {}

  /** Creates a session (a fresh id unless one is given); an existing id is a conflict. */
  async create(identity: Identity, sessionId?: string): Promise<SessionRecord> {
    const id = sessionId ?? randomUUID();
    const { rowCount } = await this.db.query(
      'INSERT INTO sessions (account_id, user_id, session_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [identity.accountId, identity.userId, id],
    );
    if (rowCount === 0) throw new KernelError(KernelErrorCode.Conflict, `Session already exists: ${id}`, { session_id: id });
    return (await this.find(identity, id)) as SessionRecord;
  }

  /** The session, or null. */
  async find(identity: Identity, sessionId: string): Promise<SessionRecord | null> {
    const { rows } = await this.db.query<SessionRow>(
      `${SESSION_SELECT} WHERE s.account_id = $1 AND s.user_id = $2 AND s.session_id = $3`,
      [identity.accountId, identity.userId, sessionId],
    );
    return rows[0] ? this.toRecord(identity, rows[0]) : null;
  }

  /** Gets or creates (materialises) the session. */
  async getOrCreate(identity: Identity, sessionId: string): Promise<{ session: SessionRecord; created: boolean }> {
    const { rowCount } = await this.db.query(
      'INSERT INTO sessions (account_id, user_id, session_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [identity.accountId, identity.userId, sessionId],
    );
    return { session: (await this.find(identity, sessionId)) as SessionRecord, created: rowCount > 0 };
  }

  async list(identity: Identity, limit = 100): Promise<SessionRecord[]> {
    const { rows } = await this.db.query<SessionRow>(
      `${SESSION_SELECT} WHERE s.account_id = $1 AND s.user_id = $2 ORDER BY s.updated_at DESC LIMIT $3`,
      [identity.accountId, identity.userId, limit],
    );
    return rows.map((r) => this.toRecord(identity, r));
  }

  async delete(identity: Identity, sessionId: string): Promise<void> {
    const { rowCount } = await this.db.query(
      'DELETE FROM sessions WHERE account_id = $1 AND user_id = $2 AND session_id = $3',
      [identity.accountId, identity.userId, sessionId],
    );
    if (rowCount === 0) throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, { session_id: sessionId });
  }

  /** Appends a message and advances the session's monotonic message counter (the ledger's clock). */
  async addMessage(identity: Identity, sessionId: string, msg: NewMessage): Promise<{ message: MessageRecord; total_message_count: number }> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ total_message_count: number }>(
        `UPDATE sessions SET total_message_count = total_message_count + 1, updated_at = now()
         WHERE account_id = $1 AND user_id = $2 AND session_id = $3 RETURNING total_message_count`,
        [identity.accountId, identity.userId, sessionId],
      );
      if (!rows[0]) throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, { session_id: sessionId });
      const seq = rows[0].total_message_count;
      const id = `msg_${randomUUID().replace(/-/g, '')}`;
      const ins = await tx.query<{ created_at: Date | string }>(
        `INSERT INTO messages (account_id, user_id, session_id, seq, message_id, role, content, parts)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) RETURNING created_at`,
        [identity.accountId, identity.userId, sessionId, seq, id, msg.role, msg.content, msg.parts ? JSON.stringify(msg.parts) : null],
      );
      const message = { id, role: msg.role, content: msg.content, parts: msg.parts ?? null, created_at: new Date(ins.rows[0].created_at).toISOString() };
      return { message, total_message_count: seq };
    });
  }

  /** The last `n` messages, oldest first. */
  async recentMessages(identity: Identity, sessionId: string, n = 20): Promise<MessageRecord[]> {
    const { rows } = await this.db.query<{ message_id: string; role: string; content: string; parts: unknown[] | null; created_at: Date | string }>(
      `SELECT message_id, role, content, parts, created_at FROM messages
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3 ORDER BY seq DESC LIMIT $4`,
      [identity.accountId, identity.userId, sessionId, n],
    );
    return rows.reverse().map((r) => ({ id: r.message_id, role: r.role, content: r.content, parts: r.parts, created_at: new Date(r.created_at).toISOString() }));
  }

  private toRecord(identity: Identity, r: SessionRow): SessionRecord {
    return {
      session_id: r.session_id,
      uri: `viking://user/${identity.userId}/sessions/${r.session_id}`,
      total_message_count: Number(r.total_message_count),
      message_count: Number(r.message_count),
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    };
  }
}

import { Identity } from '@app/kernel';
import { Db } from '../db/db.port';
import { writeArchiveFiles } from './session-files';
import { sessionUri } from './session-rows';

type Tx = Pick<Db, 'query' | 'kind'>;
type Owner = Pick<Identity, 'accountId' | 'userId'>;

/** An externalised tool output to store with the message that carries its preview. */
export interface NewToolResult {
  id: string;
  toolId: string;
  toolName: string;
  /** Filled in by the message insert (the message id is made there). */
  messageId?: string;
  mimeType: string;
  content: string;
  originalChars: number;
  previewChars: number;
  sha256: string;
  reason: string;
}

/** A stored tool result's record (no content). */
export interface ToolResultRecord {
  tool_result_id: string;
  tool_id: string;
  tool_name: string;
  message_id: string;
  mime_type: string;
  original_chars: number;
  preview_chars: number;
  sha256: string;
  reason: string;
  created_at: string;
  storage_uri: string;
}

interface ToolResultRow extends Omit<ToolResultRecord, 'created_at' | 'storage_uri'> {
  created_at: Date | string;
}

/** `viking://user/<uid>/sessions/<sid>/tool-results`: the directory of a session's tool results. */
export const toolResultsDir = (userId: string, sessionId: string) => `${sessionUri(userId, sessionId)}/tool-results`;

const COLUMNS = `t.tool_result_id, t.tool_id, t.tool_name, t.message_id, t.mime_type, t.original_chars,
  t.preview_chars, t.sha256, t.reason, t.created_at`;

/**
 * Stores tool results inside the caller's transaction (the one that inserts their messages): each
 * output becomes the file `…/tool-results/<id>` (written like archive files: browsable and greppable,
 * never indexed for context search) plus its record. The same id twice (the same tool call and output
 * sent again) keeps the first.
 */
export async function insertToolResults(
  tx: Tx,
  owner: Owner,
  sessionId: string,
  results: NewToolResult[],
): Promise<void> {
  if (results.length === 0) return;
  const dir = toolResultsDir(owner.userId, sessionId);
  await writeArchiveFiles(
    tx,
    owner,
    dir,
    results.map((r) => ({ name: r.id, content: r.content })),
  );
  for (const r of results) {
    await tx.query(
      `INSERT INTO session_tool_results (account_id, user_id, session_id, tool_result_id, tool_id, tool_name,
         message_id, mime_type, original_chars, preview_chars, sha256, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
      [
        owner.accountId,
        owner.userId,
        sessionId,
        r.id,
        r.toolId,
        r.toolName,
        r.messageId ?? '',
        r.mimeType,
        r.originalChars,
        r.previewChars,
        r.sha256,
        r.reason,
      ],
    );
  }
}

/**
 * The tool results of the caller's sessions (docs/sessions.md "Tool results"). Reads join the file:
 * a result whose file was removed through fs is gone. Offsets and lengths are in code points, which
 * is what PostgreSQL's `substr`/`length` count on UTF-8 text.
 */
export class SessionToolResultRepository {
  constructor(private readonly db: Db) {}

  /** How many tool results the session holds. */
  async count(identity: Identity, sessionId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM session_tool_results WHERE account_id = $1 AND user_id = $2 AND session_id = $3',
      [identity.accountId, identity.userId, sessionId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Oldest first, optionally only one tool's, at most `limit`. */
  async list(
    identity: Identity,
    sessionId: string,
    o: { toolName?: string; limit: number },
  ): Promise<ToolResultRecord[]> {
    const dir = toolResultsDir(identity.userId, sessionId);
    const { rows } = await this.db.query<ToolResultRow>(
      `SELECT ${COLUMNS} FROM session_tool_results t
       JOIN nodes n ON n.account_id = t.account_id AND n.uri = $4 || '/' || t.tool_result_id AND n.kind = 'file'
       WHERE t.account_id = $1 AND t.user_id = $2 AND t.session_id = $3 AND ($5::text IS NULL OR t.tool_name = $5)
       ORDER BY t.created_at, t.tool_result_id LIMIT $6`,
      [identity.accountId, identity.userId, sessionId, dir, o.toolName ?? null, o.limit],
    );
    return rows.map((r) => record(r, dir));
  }

  /**
   * One result's record and the code points `[offset, offset + limit)` of its output (`limit` null:
   * to the end), with the output's length; null when there is no such result.
   */
  async read(
    identity: Identity,
    sessionId: string,
    id: string,
    offset: number,
    limit: number | null,
  ): Promise<{ record: ToolResultRecord; content: string; total: number } | null> {
    const dir = toolResultsDir(identity.userId, sessionId);
    const { rows } = await this.db.query<ToolResultRow & { content: string; total: number }>(
      `SELECT ${COLUMNS}, length(n.content) AS total,
         CASE WHEN $6::int IS NULL THEN substr(n.content, $5::int + 1) ELSE substr(n.content, $5::int + 1, $6::int) END AS content
       FROM session_tool_results t
       JOIN nodes n ON n.account_id = t.account_id AND n.uri = $7 || '/' || t.tool_result_id AND n.kind = 'file'
       WHERE t.account_id = $1 AND t.user_id = $2 AND t.session_id = $3 AND t.tool_result_id = $4`,
      [identity.accountId, identity.userId, sessionId, id, offset, limit, dir],
    );
    const r = rows[0];
    return r ? { record: record(r, dir), content: r.content ?? '', total: Number(r.total) } : null;
  }
}

function record(r: ToolResultRow, dir: string): ToolResultRecord {
  return {
    tool_result_id: r.tool_result_id,
    tool_id: r.tool_id,
    tool_name: r.tool_name,
    message_id: r.message_id,
    mime_type: r.mime_type,
    original_chars: Number(r.original_chars),
    preview_chars: Number(r.preview_chars),
    sha256: r.sha256,
    reason: r.reason,
    created_at: new Date(r.created_at).toISOString(),
    storage_uri: `${dir}/${r.tool_result_id}`,
  };
}

import { randomUUID } from 'node:crypto';
import { ExtractJob } from '@app/contracts';
import {
  archiveName,
  Identity,
  KernelError,
  KernelErrorCode,
  nextArchiveIndex,
  planCommit,
  SessionMessage,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { messagesJsonl, writeArchiveFiles } from './session-files';
import { MESSAGE_COLUMNS, MessageRow, sessionUri, toSessionMessage } from './session-rows';

type Tx = Pick<Db, 'query' | 'kind'>;

/** How a commit asks to split the live messages. */
export interface CommitRequest {
  keepRecentCount: number;
  /** Remember `keepRecentCount` as the session's window (explicit and threshold commits; not idle ones). */
  persistKeep: boolean;
  auto: boolean;
  /** Commit-time event tags; null: the session's own. */
  eventTags: string[] | null;
}

export type CommitOutcome =
  | { status: 'skipped'; reason: 'no_messages' | 'all_within_keep_window'; activeTokens: number }
  | { status: 'accepted'; taskId: string; archiveIndex: number; archiveUri: string; archived: number };

/** An archive row as the routes and the extractor read it. */
export interface ArchiveRecord {
  index: number;
  status: 'pending' | 'done' | 'failed';
  messages: SessionMessage[];
  overview: string;
  abstract: string;
  overviewTokens: number;
  error: string | null;
  taskId: string;
}

interface ArchiveRow {
  archive_index: number;
  status: 'pending' | 'done' | 'failed';
  messages: SessionMessage[];
  overview: string;
  abstract: string;
  overview_tokens: number;
  error: string | null;
  task_id: string;
}

const toArchive = (r: ArchiveRow): ArchiveRecord => ({
  index: Number(r.archive_index),
  status: r.status,
  messages: r.messages,
  overview: r.overview,
  abstract: r.abstract,
  overviewTokens: Number(r.overview_tokens),
  error: r.error,
  taskId: r.task_id,
});

const ARCHIVE_COLUMNS = 'archive_index, status, messages, overview, abstract, overview_tokens, error, task_id';

/**
 * Commits and archives. A commit is one transaction: the session row is locked (so commits of one
 * session serialise and messages appended meanwhile belong to the next), the archived messages move
 * into an archive row, the task is created and the extraction job enqueued before the transaction
 * commits — if the queue is away the enqueue throws and nothing is archived. See docs/sessions.md "Commit".
 */
export class SessionArchiveRepository {
  constructor(private readonly db: Db) {}

  async commit(
    identity: Identity,
    sessionId: string,
    req: CommitRequest,
    enqueue: (job: ExtractJob) => Promise<void>,
  ): Promise<CommitOutcome> {
    return this.db.transaction(async (tx) => {
      const { rows: sess } = await tx.query<{ commit_count: number; event_tags: string[]; memory_policy: unknown }>(
        `SELECT commit_count, event_tags, memory_policy FROM sessions WHERE account_id = $1 AND user_id = $2 AND session_id = $3 FOR UPDATE`,
        [identity.accountId, identity.userId, sessionId],
      );
      if (!sess[0])
        throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
          type: 'session',
          resource: sessionId,
        });
      const { rows: live } = await tx.query<MessageRow & { seq: number; tokens: number }>(
        `SELECT seq, tokens, ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND user_id = $2 AND session_id = $3 ORDER BY seq`,
        [identity.accountId, identity.userId, sessionId],
      );
      const plan = planCommit(live.length, req.keepRecentCount);
      if (plan.kind === 'skip') {
        if (plan.reason === 'all_within_keep_window') await this.resetPending(tx, identity, sessionId, req, false);
        return { status: 'skipped', reason: plan.reason, activeTokens: live.reduce((n, m) => n + Number(m.tokens), 0) };
      }
      const taken = live.slice(0, plan.archiveCount);
      const { rows: hi } = await tx.query<{ n: number | null }>(
        'SELECT max(archive_index) AS n FROM session_archives WHERE account_id = $1 AND user_id = $2 AND session_id = $3',
        [identity.accountId, identity.userId, sessionId],
      );
      const index = nextArchiveIndex(Number(sess[0].commit_count), Number(hi[0]?.n ?? 0));
      const taskId = randomUUID();
      const archived = taken.map(toSessionMessage);
      await tx.query(
        `INSERT INTO session_archives (account_id, user_id, session_id, archive_index, messages, task_id)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
        [identity.accountId, identity.userId, sessionId, index, JSON.stringify(archived), taskId],
      );
      // The archive as files too (ls, tree, grep over …/history/archive_NNN), in the same transaction.
      await writeArchiveFiles(tx, identity, archiveUri(identity.userId, sessionId, index), [
        { name: 'messages.jsonl', content: messagesJsonl(archived) },
      ]);
      await tx.query('DELETE FROM messages WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND seq <= $4', [
        identity.accountId,
        identity.userId,
        sessionId,
        taken[taken.length - 1].seq,
      ]);
      const job: ExtractJob = {
        accountId: identity.accountId,
        userId: identity.userId,
        sessionId,
        archiveIndex: index,
        taskId,
        eventTags: req.eventTags ?? sess[0].event_tags ?? [],
        memoryPolicy: sess[0].memory_policy ?? null,
      };
      await tx.query(
        `INSERT INTO session_tasks (task_id, account_id, user_id, task_type, resource_id, status, job)
         VALUES ($1, $2, $3, 'session_commit', $4, 'pending', $5::jsonb)`,
        [taskId, identity.accountId, identity.userId, sessionId, JSON.stringify(job)],
      );
      await this.resetPending(tx, identity, sessionId, req, true);
      await enqueue(job);
      return {
        status: 'accepted',
        taskId,
        archiveIndex: index,
        archiveUri: archiveUri(identity.userId, sessionId, index),
        archived: taken.length,
      };
    });
  }

  private async resetPending(
    tx: Tx,
    identity: Identity,
    sessionId: string,
    req: CommitRequest,
    committed: boolean,
  ): Promise<void> {
    await tx.query(
      `UPDATE sessions SET pending_tokens = 0, updated_at = now(),
         keep_recent_count = CASE WHEN $4 THEN $5 ELSE keep_recent_count END,
         commit_count = commit_count + CASE WHEN $6 THEN 1 ELSE 0 END,
         last_commit_at = CASE WHEN $6 THEN now() ELSE last_commit_at END,
         last_auto_commit_at = CASE WHEN $6 AND $7 THEN now() ELSE last_auto_commit_at END
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3`,
      [identity.accountId, identity.userId, sessionId, req.persistKeep, req.keepRecentCount, committed, req.auto],
    );
  }

  /**
   * What `/context` reads: the newest finished archive and the pending ones newer than it, newest first
   * (older history is never read, so a long session costs what a short one does), and the archive count.
   */
  async recent(
    identity: Pick<Identity, 'accountId' | 'userId'>,
    sessionId: string,
  ): Promise<{ archives: ArchiveRecord[]; total: number }> {
    const { rows } = await this.db.query<ArchiveRow>(
      `SELECT ${ARCHIVE_COLUMNS} FROM session_archives a
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3
         AND archive_index >= (SELECT COALESCE(max(archive_index), 0) FROM session_archives
                               WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND status <> 'pending')
       ORDER BY archive_index DESC`,
      [identity.accountId, identity.userId, sessionId],
    );
    const { rows: n } = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM session_archives WHERE account_id = $1 AND user_id = $2 AND session_id = $3',
      [identity.accountId, identity.userId, sessionId],
    );
    return { archives: rows.map(toArchive), total: n[0].n };
  }

  async get(
    identity: Pick<Identity, 'accountId' | 'userId'>,
    sessionId: string,
    index: number,
  ): Promise<ArchiveRecord | null> {
    const { rows } = await this.db.query<ArchiveRow>(
      `SELECT ${ARCHIVE_COLUMNS} FROM session_archives WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND archive_index = $4`,
      [identity.accountId, identity.userId, sessionId, index],
    );
    return rows[0] ? toArchive(rows[0]) : null;
  }

  /** The overview of the newest finished archive, or '' (query expansion's "latest archive overview"). */
  async latestOverview(identity: Pick<Identity, 'accountId' | 'userId'>, sessionId: string): Promise<string> {
    const { rows } = await this.db.query<{ overview: string }>(
      `SELECT overview FROM session_archives WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND status = 'done'
       ORDER BY archive_index DESC LIMIT 1`,
      [identity.accountId, identity.userId, sessionId],
    );
    return rows[0]?.overview ?? '';
  }
}

export function archiveUri(userId: string, sessionId: string, index: number): string {
  return `${sessionUri(userId, sessionId)}/history/${archiveName(index)}`;
}

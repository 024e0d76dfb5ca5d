import { randomUUID } from 'node:crypto';
import { ExtractJob } from '@app/contracts';
import {
  archiveName,
  Identity,
  KernelError,
  KernelErrorCode,
  nextArchiveIndex,
  planCommit,
  planTurnRetention,
  SessionMessage,
  TurnBudget,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { WriteManyOutcome, WriteOp, WriteOptions } from './node-write';
import { memoryDiff, messagesJsonl, writeArchiveFiles, writeExtraction } from './session-files';
import { idleCheckAfter } from './session-idle-check.repository';
import { MESSAGE_COLUMNS, MessageRow, sessionUri, toSessionMessage } from './session-rows';
import { commitTaskExists } from './session-commit-tasks';

type Tx = Pick<Db, 'query' | 'kind'>;

/** How a commit asks to split the live messages. */
export interface CommitRequest {
  keepRecentCount: number;
  /** Remember `keepRecentCount` as the session's window (explicit and threshold commits; not idle ones). */
  persistKeep: boolean;
  auto: boolean;
  /** Commit-time event tags; null: the session's own. */
  eventTags: string[] | null;
  /** Turn-budget retention instead of `keepRecentCount` (remembered with the window when `persistKeep`). */
  turnBudget?: TurnBudget | null;
}

export type CommitOutcome =
  | { status: 'skipped'; reason: 'no_messages' | 'all_within_keep_window'; activeTokens: number }
  /** An automatic commit while a commit of the session is still pending or running. */
  | { status: 'skipped'; reason: 'commit_in_flight' }
  | {
      status: 'accepted';
      taskId: string;
      archiveIndex: number;
      archiveUri: string;
      archived: number;
      /** Tokens of the messages that stay live, and whether they exceed a turn budget. */
      activeTokens: number;
      budgetExceeded: boolean;
    };

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
  constructor(
    private readonly db: Db,
    private readonly write: WriteOptions = {},
  ) {}

  /**
   * `POST …/extract`: the memory files of an extraction over the live messages, written through the
   * write path in one transaction, with its `memory_diff.json` under the session's `manual_extract/`.
   * Nothing is archived. A session deleted meanwhile is 404 and nothing is written.
   */
  async writeManualExtraction(identity: Identity, sessionId: string, writes: WriteOp[]): Promise<WriteManyOutcome> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query(
        'SELECT 1 FROM sessions WHERE account_id = $1 AND user_id = $2 AND session_id = $3 FOR SHARE',
        [identity.accountId, identity.userId, sessionId],
      );
      if (!rows[0])
        throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
          type: 'session',
          resource: sessionId,
        });
      const extraction = await writeExtraction(tx, identity, writes, this.write);
      const dir = `${sessionUri(identity.userId, sessionId)}/manual_extract`;
      const diff = memoryDiff(dir, extraction);
      await writeArchiveFiles(tx, identity, dir, [
        { name: 'memory_diff.json', content: `${JSON.stringify(diff, null, 2)}\n` },
      ]);
      return extraction.written;
    });
  }

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
      // At most one automatic commit in flight per session, decided under the session's lock (before its messages
      // are read): the gateway's commit after a message and the session's check no longer both commit.
      if (req.auto && (await commitTaskExists(tx, identity, sessionId, true)))
        return { status: 'skipped', reason: 'commit_in_flight' };
      const { rows: live } = await tx.query<MessageRow & { seq: number; tokens: number }>(
        `SELECT seq, tokens, ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND user_id = $2 AND session_id = $3 ORDER BY seq`,
        [identity.accountId, identity.userId, sessionId],
      );
      const plan = commitPlan(live, req);
      if (plan.kind === 'skip') {
        if (plan.reason === 'all_within_keep_window') await this.resetPending(tx, identity, sessionId, req, false);
        return { status: 'skipped', reason: plan.reason, activeTokens: live.reduce((n, m) => n + Number(m.tokens), 0) };
      }
      const taken = live.slice(0, plan.archiveCount);
      const activeTokens = live.slice(plan.archiveCount).reduce((n, m) => n + Number(m.tokens), 0);
      const owned = [identity.accountId, identity.userId, sessionId];
      const { rows: hi } = await tx.query<{ n: number | null; mark: number | null }>(
        `SELECT (SELECT max(archive_index) FROM session_archives WHERE account_id = $1 AND user_id = $2 AND session_id = $3) AS n,
                (SELECT highest_index FROM session_archive_marks WHERE account_id = $1 AND user_id = $2 AND session_id = $3) AS mark`,
        owned,
      );
      const index = nextArchiveIndex(Number(sess[0].commit_count), Number(hi[0]?.n ?? 0), Number(hi[0]?.mark ?? 0));
      await tx.query(
        `INSERT INTO session_archive_marks (account_id, user_id, session_id, highest_index) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, user_id, session_id) DO UPDATE SET highest_index = excluded.highest_index`,
        [...owned, index],
      );
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
        archivedTokens: taken.reduce((n, m) => n + Number(m.tokens), 0),
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
        activeTokens,
        budgetExceeded: !!req.turnBudget && activeTokens > req.turnBudget.tokenBudget,
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
    // The window is remembered with its retention settings (default mode resets the turn fields).
    const tb = req.turnBudget ?? null;
    await tx.query(
      `UPDATE sessions SET pending_tokens = 0, updated_at = now(),
         keep_recent_count = CASE WHEN $4 THEN $5 ELSE keep_recent_count END,
         retention_mode = CASE WHEN $4 THEN $8 ELSE retention_mode END,
         keep_recent_turn_count = CASE WHEN $4 THEN $9 ELSE keep_recent_turn_count END,
         retained_message_token_budget = CASE WHEN $4 THEN $10 ELSE retained_message_token_budget END,
         min_raw_tail_steps = CASE WHEN $4 THEN $11 ELSE min_raw_tail_steps END,
         commit_count = commit_count + CASE WHEN $6 THEN 1 ELSE 0 END,
         last_commit_at = CASE WHEN $6 THEN now() ELSE last_commit_at END,
         last_auto_commit_at = CASE WHEN $6 AND $7 THEN now() ELSE last_auto_commit_at END,
         idle_check_at = CASE WHEN idle_check_at <= now() THEN ${idleCheckAfter('last_message_at')} ELSE idle_check_at END
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3`,
      [
        identity.accountId,
        identity.userId,
        sessionId,
        req.persistKeep,
        tb ? 0 : req.keepRecentCount,
        committed,
        req.auto,
        tb ? 'turn_budget' : '',
        tb?.turns ?? 0,
        tb?.tokenBudget ?? 0,
        tb?.minTailSteps ?? 1,
      ],
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

  /**
   * The last `n` messages of the pending archives newer than the newest finished one, oldest first: with
   * the live messages they are what query expansion reads (docs/sessions.md "Query expansion"). Only the
   * tail of each archive leaves the database.
   */
  async pendingTail(
    identity: Pick<Identity, 'accountId' | 'userId'>,
    sessionId: string,
    n: number,
  ): Promise<SessionMessage[]> {
    const { rows } = await this.db.query<{ tail: SessionMessage[] | null }>(
      `SELECT (SELECT jsonb_agg(e ORDER BY o) FROM jsonb_array_elements(a.messages) WITH ORDINALITY AS t(e, o)
                WHERE o > jsonb_array_length(a.messages) - $4) AS tail
       FROM session_archives a
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND status = 'pending'
         AND archive_index > (SELECT COALESCE(max(archive_index), 0) FROM session_archives
                              WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND status <> 'pending')
       ORDER BY archive_index DESC LIMIT $4`,
      [identity.accountId, identity.userId, sessionId, n],
    );
    return rows
      .reverse()
      .flatMap((r) => r.tail ?? [])
      .slice(-n);
  }
}

/** The commit's split of the live messages: by count (`keepRecentCount`) or by turn budget. */
function commitPlan(live: (MessageRow & { tokens: number })[], req: CommitRequest): ReturnType<typeof planCommit> {
  if (!req.turnBudget || live.length === 0) return planCommit(live.length, req.keepRecentCount);
  const { archive } = planTurnRetention(live.map(retentionMessage), req.turnBudget);
  return archive === 0
    ? { kind: 'skip', reason: 'all_within_keep_window' }
    : { kind: 'archive', archiveCount: archive, keep: live.length - archive };
}

/** A live message as the turn planner reads it. */
export function retentionMessage(m: { role: string; extra: Record<string, unknown> | null; tokens: number }) {
  const kind = m.extra?.message_kind;
  return { role: m.role, messageKind: typeof kind === 'string' ? kind : undefined, tokens: Number(m.tokens) };
}

export function archiveUri(userId: string, sessionId: string, index: number): string {
  return `${sessionUri(userId, sessionId)}/history/${archiveName(index)}`;
}

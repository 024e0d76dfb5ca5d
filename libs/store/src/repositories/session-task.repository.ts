import { ExtractJob } from '@app/contracts';
import { Identity, KernelError, KernelErrorCode, sanitiseTaskError } from '@app/kernel';
import { Db } from '../db/db.port';
import { commitTaskExists } from './session-commit-tasks';
import { shareTenantRows } from '../db/tenant-rows-lock';
import { WriteManyOutcome, WriteOp, WriteOptions } from './node-write';
import { archiveUri } from './session-archive.repository';
import { memoryDiff, writeArchiveFiles, writeExtraction } from './session-files';
import { consumeUsage, UsageConsumed } from './session-usage.repository';

export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelling' | 'cancelled';

const TERMINAL: TaskStatus[] = ['completed', 'failed', 'cancelled'];
const CANCELLED_ERROR = 'cancelled';

/** A task record in its wire shape (docs/sessions.md "Tasks"); owner identity is never emitted. */
export interface TaskRecord {
  task_id: string;
  task_type: string;
  status: TaskStatus;
  created_at: number;
  updated_at: number;
  resource_id: string;
  meta: Record<string, never>;
  stage: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at_iso: string;
  updated_at_iso: string;
}

interface TaskRow {
  task_id: string;
  task_type: string;
  status: TaskStatus;
  resource_id: string;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const toTask = (r: TaskRow): TaskRecord => {
  const c = new Date(r.created_at);
  const u = new Date(r.updated_at);
  const terminal = TERMINAL.includes(r.status);
  return {
    task_id: r.task_id,
    task_type: r.task_type,
    status: r.status,
    created_at: c.getTime() / 1000,
    updated_at: u.getTime() / 1000,
    resource_id: r.resource_id,
    meta: {},
    stage: terminal ? r.status : null,
    result: r.result,
    error: r.error,
    created_at_iso: c.toISOString(),
    updated_at_iso: u.toISOString(),
  };
};

const COLUMNS = 'task_id, task_type, status, resource_id, result, error, created_at, updated_at';

/** What an extraction stores when it ends well: memory writes, the archive summary and the task result. */
export interface ExtractionOutcome {
  writes: WriteOp[];
  overview: string;
  abstract: string;
  overviewTokens: number;
  /** Builds the task result from what the writes did (created vs changed files) and the usage consumed. */
  result: (written: WriteManyOutcome, usage: UsageConsumed) => Record<string, unknown>;
  llmUsage: { prompt_tokens: number; completion_tokens: number } | null;
  /** Long-term extraction ran: the archive gets its `memory_diff.json` (even when nothing changed). */
  memoryDiff: boolean;
  workingMemory: boolean;
}

/** How long terminal task records are kept after their last change (docs/sessions.md "Tasks"). */
export interface TaskRetention {
  /** Completed and cancelled records. */
  ttlMs: number;
  /** Failed records. */
  failedTtlMs: number;
}

const DEFAULT_RETENTION: TaskRetention = { ttlMs: 86_400_000, failedTtlMs: 604_800_000 };

/**
 * A record is live unless it is terminal and older than its retention ($TTL and $FAILED_TTL in ms):
 * reads apply it, so an expired record is 404 even before the sweep deletes it.
 */
const LIVE = (ttl: string, failedTtl: string) =>
  `NOT ((status IN ('completed', 'cancelled') AND updated_at < now() - ${ttl} * interval '1 millisecond')
     OR (status = 'failed' AND updated_at < now() - ${failedTtl} * interval '1 millisecond'))`;

/** Commit tasks: read by their owner through the tasks API, advanced by the extractor. */
export class SessionTaskRepository {
  constructor(
    private readonly db: Db,
    private readonly write: WriteOptions = {},
    private readonly retention: TaskRetention = DEFAULT_RETENTION,
  ) {}

  async get(identity: Pick<Identity, 'accountId' | 'userId'>, taskId: string): Promise<TaskRecord | null> {
    const { rows } = await this.db.query<TaskRow>(
      `SELECT ${COLUMNS} FROM session_tasks WHERE task_id = $1 AND account_id = $2 AND user_id = $3 AND ${LIVE('$4', '$5')}`,
      [taskId, identity.accountId, identity.userId, this.retention.ttlMs, this.retention.failedTtlMs],
    );
    return rows[0] ? toTask(rows[0]) : null;
  }

  /**
   * Cancels the caller's task: pending → cancelled at once (its job, when it runs, finds it terminal),
   * running → cancelling (the extractor finishes it as cancelled instead of writing). Either way the
   * archive ends failed with `cancelled` and its messages stay archived. Repeats on a cancelling or
   * cancelled task change nothing; a completed or failed one is 412; unknown or expired → null.
   */
  async cancel(identity: Pick<Identity, 'accountId' | 'userId'>, taskId: string): Promise<TaskRecord | null> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<TaskRow & { job: ExtractJob | null }>(
        `SELECT ${COLUMNS}, job FROM session_tasks WHERE task_id = $1 AND account_id = $2 AND user_id = $3
           AND ${LIVE('$4', '$5')} FOR UPDATE`,
        [taskId, identity.accountId, identity.userId, this.retention.ttlMs, this.retention.failedTtlMs],
      );
      const row = rows[0];
      if (!row) return null;
      if (row.status === 'completed' || row.status === 'failed') {
        throw new KernelError(KernelErrorCode.FailedPrecondition, `Task ${taskId} is already ${row.status}`, {
          resource: taskId,
          type: 'task',
          status: row.status,
        });
      }
      if (row.status === 'pending') {
        await tx.query(
          `UPDATE session_tasks SET status = 'cancelled', error = $2, updated_at = now() WHERE task_id = $1`,
          [taskId, CANCELLED_ERROR],
        );
        if (row.job) await failArchive(tx, row.job, CANCELLED_ERROR, 'cancelled');
      } else if (row.status === 'running') {
        await tx.query(`UPDATE session_tasks SET status = 'cancelling', updated_at = now() WHERE task_id = $1`, [
          taskId,
        ]);
      }
      const { rows: after } = await tx.query<TaskRow>(`SELECT ${COLUMNS} FROM session_tasks WHERE task_id = $1`, [
        taskId,
      ]);
      return toTask(after[0]);
    });
  }

  /** Deletes terminal records past their retention; returns how many. Run by the extractor's relay. */
  async deleteExpired(limit: number): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM session_tasks WHERE task_id IN (
         SELECT task_id FROM session_tasks WHERE status IN ('completed', 'failed', 'cancelled')
           AND NOT ${LIVE('$2', '$3')} LIMIT $1)`,
      [limit, this.retention.ttlMs, this.retention.failedTtlMs],
    );
    return rowCount ?? 0;
  }

  /** The caller's tasks, newest first; filters are exact matches. */
  async list(
    identity: Pick<Identity, 'accountId' | 'userId'>,
    f: { taskType?: string; status?: string; resourceId?: string },
    limit: number,
  ): Promise<TaskRecord[]> {
    const { rows } = await this.db.query<TaskRow>(
      `SELECT ${COLUMNS} FROM session_tasks WHERE account_id = $1 AND user_id = $2
         AND ($3::text IS NULL OR task_type = $3) AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR resource_id = $5)
         AND ${LIVE('$7', '$8')}
       ORDER BY created_at DESC, task_id LIMIT $6`,
      [
        identity.accountId,
        identity.userId,
        f.taskType ?? null,
        f.status ?? null,
        f.resourceId ?? null,
        limit,
        this.retention.ttlMs,
        this.retention.failedTtlMs,
      ],
    );
    return rows.map(toTask);
  }

  /** The task's status as the extractor sees it (no owner check: the job names its owner). */
  async statusOf(taskId: string): Promise<TaskStatus | null> {
    const { rows } = await this.db.query<{ status: TaskStatus }>(
      'SELECT status FROM session_tasks WHERE task_id = $1',
      [taskId],
    );
    return rows[0]?.status ?? null;
  }

  /**
   * Marks the task running; TenantBusy (nothing changed) while a removal of the account's rows runs or
   * waits, so the job is put back instead of waiting on a task row the removal may be deleting.
   */
  async markRunning(accountId: string, taskId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await shareTenantRows(tx, accountId);
      await tx.query(
        `UPDATE session_tasks SET status = 'running', updated_at = now() WHERE task_id = $1 AND status = 'pending'`,
        [taskId],
      );
    });
  }

  /**
   * The running task's extraction progress (docs/sessions.md, "A provider that fails for a while"), as
   * the extractor saved it; null when none was saved or the task is not running.
   */
  async extractProgress(taskId: string): Promise<unknown> {
    const { rows } = await this.db.query<{ p: unknown }>(
      `SELECT extract_progress AS p FROM session_tasks WHERE task_id = $1 AND status = 'running'`,
      [taskId],
    );
    return rows[0]?.p ?? null;
  }

  /** Keeps the running task's extraction progress for a retried job; a task no longer running keeps none. */
  /** Saves the running task's progress; TenantBusy (not saved) while a removal of the account's rows runs. */
  async saveExtractProgress(accountId: string, taskId: string, progress: unknown): Promise<void> {
    await this.db.transaction(async (tx) => {
      await shareTenantRows(tx, accountId);
      await tx.query(
        `UPDATE session_tasks SET extract_progress = $2::jsonb, updated_at = now() WHERE task_id = $1 AND status = 'running'`,
        [taskId, JSON.stringify(progress)],
      );
    });
  }

  /**
   * Hands open tasks whose last change is older than `graceMs` to `enqueue` (their job may have been
   * lost with Redis) and stamps them, all in one transaction; rows are claimed with SKIP LOCKED so
   * several relays share the work. Re-adding a job that still exists is a no-op (same job id).
   */
  async relayStale(limit: number, graceMs: number, enqueue: (jobs: ExtractJob[]) => Promise<void>): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ task_id: string; job: ExtractJob | null }>(
        `SELECT task_id, job FROM session_tasks WHERE status IN ('pending', 'running', 'cancelling') AND job IS NOT NULL
           AND updated_at <= now() - $2 * interval '1 millisecond'
         ORDER BY updated_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit, graceMs],
      );
      if (rows.length === 0) return 0;
      await enqueue(rows.map((r) => r.job as ExtractJob));
      await tx.query('UPDATE session_tasks SET updated_at = now() WHERE task_id = ANY($1::text[])', [
        rows.map((r) => r.task_id),
      ]);
      return rows.length;
    });
  }

  /** Whether another session commit of this session is still pending or running (auto-commit skips then). */
  /**
   * The account's commits still awaiting extraction (pending, running or cancelling), counted up to
   * `upTo`: one range of the partial index `session_tasks_open_account` (migration 97), never more than
   * `upTo` rows (docs/limits-and-security.md, "Backlog bounds").
   */
  async openCommits(accountId: string, upTo: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM session_tasks WHERE account_id = $1
         AND status IN ('pending', 'running', 'cancelling') LIMIT $2) t`,
      [accountId, upTo],
    );
    return rows[0]?.n ?? 0;
  }

  /** Whether the session was ever committed (a commit task of it exists, in any state, kept or not yet expired). */
  anyCommit(identity: Pick<Identity, 'accountId' | 'userId'>, sessionId: string): Promise<boolean> {
    return commitTaskExists(this.db, identity, sessionId, false);
  }

  /**
   * Ends an extraction in one transaction: memory files written through the write path (with their
   * outbox entry), the session's usage records consumed into `active_count`, archive marked done with
   * its summary, session counters advanced, task completed.
   * A task already completed (a replayed job) changes nothing and returns null.
   */
  async complete(job: ExtractJob, identity: Identity, out: ExtractionOutcome): Promise<WriteManyOutcome | null> {
    return this.db.transaction(async (tx) => {
      // Not beside a removal of the account's rows (TenantBusy: the job is put back): see shareTenantRows.
      await shareTenantRows(tx, job.accountId);
      const { rows } = await tx.query<{ status: TaskStatus }>(
        'SELECT status FROM session_tasks WHERE task_id = $1 FOR UPDATE',
        [job.taskId],
      );
      if (!rows[0] || TERMINAL.includes(rows[0].status)) return null;
      if (rows[0].status === 'cancelling') {
        await finishCancelled(tx, job);
        return null;
      }
      const extraction = await writeExtraction(tx, identity, out.writes, this.write);
      const written = extraction.written;
      const usage = await consumeUsage(tx, identity, job.sessionId);
      const result = out.result(written, usage);
      const diff = out.memoryDiff
        ? memoryDiff(archiveUri(job.userId, job.sessionId, job.archiveIndex), extraction)
        : null;
      await writeDoneFiles(tx, job, out, diff);
      const counts = result.memories_extracted as Record<string, number>;
      await tx.query(
        `UPDATE session_archives SET status = 'done', overview = $5, abstract = $6, overview_tokens = $7, updated_at = now()
         WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND archive_index = $4`,
        [job.accountId, job.userId, job.sessionId, job.archiveIndex, out.overview, out.abstract, out.overviewTokens],
      );
      const { rows: totals } = await tx.query<{ llm_token_usage: Record<string, number> | null }>(
        `UPDATE sessions SET updated_at = now(), memories_extracted = jsonb_build_object(
             'memory_write', COALESCE((memories_extracted->>'memory_write')::int, 0) + $4,
             'memory_edit', COALESCE((memories_extracted->>'memory_edit')::int, 0) + $5,
             'total', COALESCE((memories_extracted->>'total')::int, 0) + $4 + $5),
           llm_token_usage = jsonb_build_object(
             'prompt_tokens', COALESCE((llm_token_usage->>'prompt_tokens')::int, 0) + $6,
             'completion_tokens', COALESCE((llm_token_usage->>'completion_tokens')::int, 0) + $7,
             'total_tokens', COALESCE((llm_token_usage->>'total_tokens')::int, 0) + $6 + $7)
         WHERE account_id = $1 AND user_id = $2 AND session_id = $3
         RETURNING llm_token_usage`,
        [
          job.accountId,
          job.userId,
          job.sessionId,
          counts.memory_write ?? 0,
          counts.memory_edit ?? 0,
          out.llmUsage?.prompt_tokens ?? 0,
          out.llmUsage?.completion_tokens ?? 0,
        ],
      );
      // The contract's token_usage is the session's cumulative usage after this commit; the commit's
      // own stays visible as commit_token_usage (docs/sessions.md "Tasks").
      if (totals[0]) {
        result.commit_token_usage = result.token_usage;
        result.token_usage = cumulativeTokenUsage(totals[0].llm_token_usage ?? {});
      }
      await tx.query(
        `UPDATE session_tasks SET status = 'completed', result = $2::jsonb, extract_progress = NULL, updated_at = now()
         WHERE task_id = $1`,
        [job.taskId, JSON.stringify(result)],
      );
      return written;
    });
  }

  /** Marks the task failed (and its archive, if it still exists); the error text is sanitised. A task being cancelled ends cancelled. */
  async fail(job: ExtractJob, error: string): Promise<void> {
    const clean = sanitiseTaskError(error);
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ status: TaskStatus }>(
        'SELECT status FROM session_tasks WHERE task_id = $1 FOR UPDATE',
        [job.taskId],
      );
      if (rows[0]?.status === 'cancelling') return finishCancelled(tx, job);
      await tx.query(
        `UPDATE session_tasks SET status = 'failed', error = $2, extract_progress = NULL, updated_at = now()
         WHERE task_id = $1 AND status IN ('pending', 'running')`,
        [job.taskId, clean],
      );
      await failArchive(tx, job, clean, 'memory_extraction');
    });
  }

  /** Ends a task that was being cancelled (the extractor saw `cancelling` before writing anything). */
  async finishCancelled(job: ExtractJob): Promise<void> {
    await this.db.transaction((tx) => finishCancelled(tx, job));
  }
}

type Tx = Pick<Db, 'query' | 'kind'>;

async function finishCancelled(tx: Tx, job: ExtractJob): Promise<void> {
  await tx.query(
    `UPDATE session_tasks SET status = 'cancelled', error = $2, extract_progress = NULL, updated_at = now()
     WHERE task_id = $1 AND status = 'cancelling'`,
    [job.taskId, CANCELLED_ERROR],
  );
  await failArchive(tx, job, CANCELLED_ERROR, 'cancelled');
}

/**
 * A still-pending archive ends failed (its messages stay archived; the next commit is not blocked) and
 * gets its `.failed.json`; an archive that no longer exists (session deleted) is left alone.
 */
async function failArchive(tx: Tx, job: ExtractJob, error: string, stage: string): Promise<void> {
  const { rowCount } = await tx.query(
    `UPDATE session_archives SET status = 'failed', error = $5, updated_at = now()
     WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND archive_index = $4 AND status = 'pending'`,
    [job.accountId, job.userId, job.sessionId, job.archiveIndex, error],
  );
  if (!rowCount) return;
  const failed = { stage, error, failed_at: new Date().toISOString(), skipped: true, completed_memory_steps: {} };
  await writeArchiveFiles(tx, job, archiveUri(job.userId, job.sessionId, job.archiveIndex), [
    { name: '.failed.json', content: `${JSON.stringify(failed, null, 2)}\n` },
  ]);
}

/** The finished archive's files: `.done`, `memory_diff.json` (when extraction ran) and its summary. */
async function writeDoneFiles(tx: Tx, job: ExtractJob, out: ExtractionOutcome, diff: unknown): Promise<void> {
  const { rows } = await tx.query<{ first: string | null; last: string | null }>(
    `SELECT messages->0->>'id' AS first, messages->-1->>'id' AS last FROM session_archives
     WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND archive_index = $4`,
    [job.accountId, job.userId, job.sessionId, job.archiveIndex],
  );
  if (!rows[0]) return;
  const name = archiveUri(job.userId, job.sessionId, job.archiveIndex);
  const done = {
    starting_message_id: rows[0].first,
    ending_message_id: rows[0].last,
    working_memory_enabled: out.workingMemory,
    coverage_start_archive: job.archiveIndex,
    coverage_end_archive: job.archiveIndex,
    covered_failed_archives: [],
    completed_memory_steps: out.memoryDiff ? { long_term: true } : {},
  };
  const files = [{ name: '.done', content: `${JSON.stringify(done, null, 2)}\n` }];
  if (diff) files.push({ name: 'memory_diff.json', content: `${JSON.stringify(diff, null, 2)}\n` });
  const summary = out.workingMemory ? { abstract: out.abstract, overview: out.overview } : undefined;
  await writeArchiveFiles(tx, job, name, files, summary);
}

/** The task result's `token_usage` shape (contract §6.8) from the session's summed `llm_token_usage`. */
function cumulativeTokenUsage(u: Record<string, number>): Record<string, unknown> {
  const prompt = Number(u.prompt_tokens ?? 0);
  const completion = Number(u.completion_tokens ?? 0);
  const total = Number(u.total_tokens ?? prompt + completion);
  return {
    llm: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: total,
      cached_tokens: 0,
      reasoning_tokens: 0,
    },
    embedding: { total_tokens: 0 },
    total: { total_tokens: total, cached_tokens: 0, reasoning_tokens: 0 },
  };
}

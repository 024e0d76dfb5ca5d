import { IndexJob } from '@app/contracts';
import type { IndexRunRecord } from '@app/kernel';
import { Db } from '../db/db.port';

type Tx = Pick<Db, 'query' | 'kind'>;

interface OutboxRow {
  id: string | number;
  account_id: string;
  op: 'upsert' | 'delete';
  uris: string[];
  stamp: string;
}

const toJob = (r: OutboxRow): IndexJob => ({
  accountId: r.account_id,
  outboxId: Number(r.id),
  stamp: String(r.stamp),
  op: r.op,
  uris: r.uris,
});

// The entry's creation time in microseconds: with its id, it names the entry across store lifetimes.
const ROW = `id, account_id, op, uris, (extract(epoch FROM created_at) * 1000000)::bigint::text AS stamp`;

/**
 * Records, inside the write's own transaction, that `uris` need indexing. The writer enqueues the job
 * itself right after the commit, so the entry only becomes due for the relay after `graceMs`.
 */
export async function insertOutbox(
  tx: Tx,
  accountId: string,
  op: 'upsert' | 'delete',
  uris: string[],
  graceMs = OUTBOX_GRACE_MS,
): Promise<IndexJob> {
  const { rows } = await tx.query<OutboxRow>(
    `INSERT INTO index_outbox (account_id, op, uris, due_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
     RETURNING ${ROW}`,
    [accountId, op, uris, graceMs],
  );
  return toJob(rows[0]);
}

/** How long after a write its outbox entry waits before the relay treats the writer's enqueue as lost. */
export const OUTBOX_GRACE_MS = 10_000;

/** The write outbox seen from the relay and the index workers. */
/**
 * An outbox entry as its index job names it: by its id and its account. A job is matched to its entry by both, so a
 * job left in Redis from before the store was restored (ids begin again) never counts, splits, holds or deletes
 * another account's entry that took its id.
 */
export type OutboxEntryRef = Pick<IndexJob, 'accountId' | 'outboxId'>;

export class OutboxRepository {
  constructor(private readonly db: Db) {}

  /**
   * Hands the entries that are due to `enqueue` and pushes their due time `retryMs` ahead, all in one
   * transaction: when `enqueue` throws (Redis away) nothing changes and the entries stay due. Rows are
   * claimed with SKIP LOCKED, so relays in several processes share the work without doubling it.
   */
  async relayDue(limit: number, retryMs: number, enqueue: (jobs: IndexJob[]) => Promise<void>): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<OutboxRow>(
        `SELECT ${ROW} FROM index_outbox WHERE due_at <= now() ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await enqueue(rows.map(toJob));
      // Backs off per attempt (up to 64 × retryMs), so an entry whose job sits in a long backlog is not re-added every few seconds.
      await tx.query(
        `UPDATE index_outbox SET attempts = attempts + 1,
           due_at = now() + $2 * power(2, LEAST(attempts, 6)) * interval '1 millisecond' WHERE id = ANY($1::bigint[])`,
        [rows.map((r) => Number(r.id)), retryMs],
      );
      return rows.length;
    });
  }

  /**
   * Outbox entries (of at most `chunk` nodes) that re-index `uris` with the current embedder, marked as
   * the reindex of `root`. Null when a reindex of `root` in this account still has entries pending (not set aside): the
   * check and the inserts run in one transaction under a lock on (account, root), so two concurrent
   * requests cannot both start.
   */
  async reindex(accountId: string, root: string, uris: string[], chunk = 256): Promise<IndexJob[] | null> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(4242040, hashtext($1))', [`${accountId}\n${root}`]);
      // An entry set aside (its indexing took down workers) is not a running reindex: a new one may try its files again.
      const running = await tx.query(
        'SELECT 1 FROM index_outbox WHERE account_id = $1 AND reindex_root = $2 AND held_at IS NULL LIMIT 1',
        [accountId, root],
      );
      if (running.rows.length > 0) return null;
      const jobs: IndexJob[] = [];
      for (let i = 0; i < uris.length; i += chunk) {
        const job = await insertOutbox(tx, accountId, 'upsert', uris.slice(i, i + chunk));
        await tx.query('UPDATE index_outbox SET reindex_root = $2 WHERE id = $1', [job.outboxId, root]);
        jobs.push(job);
      }
      return jobs;
    });
  }

  /**
   * Counts a run of the entry as begun (docs/architecture.md, "A job that kills its worker"): returns, as they were
   * before it, how many runs began and never ended (their worker died under them) and how many of those ran alone
   * in their process, and how many files the entry names; null when the entry is gone (indexed already). A run
   * that ends without indexing the entry takes its counts back ({@link endRun}); one that indexes it deletes it.
   */
  async beginRun(entry: OutboxEntryRef): Promise<IndexRunRecord | null> {
    const { rows } = await this.db.query<{ crashes: number; alone: number; files: number }>(
      `UPDATE index_outbox SET open_runs = open_runs + 1 WHERE id = $1 AND account_id = $2
       RETURNING open_runs - 1 AS crashes, alone_runs AS alone, cardinality(uris) AS files`,
      [entry.outboxId, entry.accountId],
    );
    const r = rows[0];
    return r ? { crashes: Number(r.crashes), aloneCrashes: Number(r.alone), files: Number(r.files) } : null;
  }

  /** Counts the begun run as made alone in its process: it has the process's durable work to itself now. */
  async beginAlone(entry: OutboxEntryRef): Promise<void> {
    await this.db.query('UPDATE index_outbox SET alone_runs = alone_runs + 1 WHERE id = $1 AND account_id = $2', [
      entry.outboxId,
      entry.accountId,
    ]);
  }

  /** Takes back the counts of a run that ended without indexing the entry (it failed, or was put back). */
  async endRun(entry: OutboxEntryRef, alone: boolean): Promise<void> {
    await this.db.query(
      `UPDATE index_outbox SET open_runs = GREATEST(open_runs - 1, 0),
         alone_runs = GREATEST(alone_runs - $2::int, 0) WHERE id = $1 AND account_id = $3`,
      [entry.outboxId, alone ? 1 : 0, entry.accountId],
    );
  }

  /**
   * Replaces the entry by one entry per file, in one transaction, and returns how many it made (0 when the entry is
   * gone). The new entries keep the entry's operation and reindex mark and start with no runs; they are due for
   * the relay after `graceMs`, like a write's. The nodes keep the rev the write gave them: an index job stores
   * what it read only while a node still has the rev it read, whichever entry names it.
   */
  async split(entry: OutboxEntryRef, graceMs: number): Promise<number> {
    const { outboxId } = entry;
    return this.db.transaction(async (tx) => {
      const gone = await tx.query<{ account_id: string; op: string; uris: string[]; reindex_root: string | null }>(
        'DELETE FROM index_outbox WHERE id = $1 AND account_id = $2 RETURNING account_id, op, uris, reindex_root',
        [outboxId, entry.accountId],
      );
      const e = gone.rows[0];
      if (!e) return 0;
      const { rows } = await tx.query(
        `INSERT INTO index_outbox (account_id, op, uris, due_at, reindex_root, split_from)
         SELECT $1, $2, ARRAY[u.uri], now() + $4 * interval '1 millisecond', $5, $6
         FROM unnest($3::text[]) WITH ORDINALITY AS u(uri, n) ORDER BY u.n
         RETURNING id`,
        [e.account_id, e.op, e.uris, graceMs, e.reindex_root, outboxId],
      );
      return rows.length;
    });
  }

  /**
   * Sets the entry aside for `holdMs`: the relay adds its job again only then. Its count of runs that never ended
   * becomes `openRuns` and its runs alone none, so the caller decides what the run after the hold is. Returns
   * when the hold ends, or null when the entry is gone.
   */
  async hold(entry: OutboxEntryRef, holdMs: number, openRuns: number): Promise<Date | null> {
    const { rows } = await this.db.query<{ until: Date | string }>(
      `UPDATE index_outbox SET held_at = now(), open_runs = $3, alone_runs = 0,
         due_at = now() + $2 * interval '1 millisecond'
       WHERE id = $1 AND account_id = $4 RETURNING due_at AS until`,
      [entry.outboxId, holdMs, openRuns, entry.accountId],
    );
    return rows[0] ? new Date(rows[0].until) : null;
  }

  /**
   * Files named by entries set aside since their index jobs took down workers, of one account or of all (metrics):
   * a partial index holds those entries only.
   */
  async heldFiles(accountId?: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>(
      `SELECT coalesce(sum(cardinality(uris)), 0)::bigint AS n FROM index_outbox
       WHERE held_at IS NOT NULL AND ($1::text IS NULL OR account_id = $1)`,
      [accountId ?? null],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Whether the entry still waits for its index job (the job deletes it once the nodes are indexed). */
  async pending(outboxId: number): Promise<boolean> {
    // Or split per file (`split`): its files are indexed only once the entries made of it are gone.
    const { rows } = await this.db.query(
      'SELECT 1 FROM index_outbox WHERE id = $1 UNION ALL (SELECT 1 FROM index_outbox WHERE split_from = $1 LIMIT 1)',
      [outboxId],
    );
    return rows.length > 0;
  }

  /**
   * Files of the account written but not yet indexed, counted over at most `upTo` of its entries (each
   * names one file or more, so the sum reaches `upTo` whenever the true figure does): one index range
   * of `index_outbox_account`, never more than `upTo` rows (docs/limits-and-security.md, "Backlog bounds").
   */
  async pendingFiles(accountId: string, upTo: number): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>(
      `SELECT coalesce(sum(cardinality(uris)), 0)::bigint AS n
       FROM (SELECT uris FROM index_outbox WHERE account_id = $1 LIMIT $2) t`,
      [accountId, upTo],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Entries not yet indexed (metrics, tests). */
  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_outbox');
    return rows[0].n;
  }
}

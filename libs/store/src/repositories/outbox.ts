import { IndexJob } from '@app/contracts';
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
   * the reindex of `root`. Null when a reindex of `root` in this account still has entries pending: the
   * check and the inserts run in one transaction under a lock on (account, root), so two concurrent
   * requests cannot both start.
   */
  async reindex(accountId: string, root: string, uris: string[], chunk = 256): Promise<IndexJob[] | null> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(4242040, hashtext($1))', [`${accountId}\n${root}`]);
      const running = await tx.query('SELECT 1 FROM index_outbox WHERE account_id = $1 AND reindex_root = $2 LIMIT 1', [
        accountId,
        root,
      ]);
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

  /** Whether the entry still waits for its index job (the job deletes it once the nodes are indexed). */
  async pending(outboxId: number): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM index_outbox WHERE id = $1', [outboxId]);
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

import { Db } from '../db/db.port';
import { shareTenantRows } from '../db/tenant-rows-lock';
import type { OutboxEntryRef } from './outbox';

/** A node as the indexer reads it: what it needs to index and the rev it read. */
export interface IndexInput {
  uri: string;
  kind: 'file' | 'directory';
  content: string;
  rev: number;
}

/** The index of one file, computed by the indexer. */
export interface FileIndex {
  uri: string;
  /** The rev the content was read at; the row is left alone if a newer write changed it meanwhile. */
  rev: number;
  abstract: string;
  searchText: string;
  embedding: Float32Array | null;
}

/** Outcome of asking for a directory summary refresh. */
export type SidecarClaim =
  | {
      state: 'claimed';
      claim: number;
      abstract: string;
      overview: string;
      indexed: boolean;
      embedderId: string | null;
      /** What the directory was made with (`mkdir`), which heads its summaries; null without one. */
      description: string | null;
    }
  /** `scheduled`: the refresh was already due before this claim, so its job is on its way (or the relay's). */
  | { state: 'deferred'; delayMs: number; scheduled: boolean }
  | { state: 'missing' };

export interface DirectorySummary {
  abstract: string;
  overview: string;
  searchText: string;
  embedding: Float32Array | null;
  embedderId: string | null;
}

const vectorText = (v: Float32Array | null) => (v ? `[${Array.from(v, (x) => +x.toFixed(6)).join(',')}]` : null);

/**
 * The indexer's side of the store. Account-scoped system access: the writes it serves were authorised
 * by the gateway already.
 */
export class NodeIndexRepository {
  constructor(private readonly db: Db) {}

  /** Throws TenantBusy while a removal of the account's rows runs or waits (a probe: see shareTenantRows). */
  async assertTenantFree(accountId: string): Promise<void> {
    await shareTenantRows(this.db, accountId);
  }

  async nodesForIndex(accountId: string, uris: string[]): Promise<IndexInput[]> {
    const { rows } = await this.db.query<IndexInput & { rev: string | number }>(
      'SELECT uri, kind, content, rev FROM nodes WHERE account_id = $1 AND uri = ANY($2::text[]) ORDER BY uri',
      [accountId, uris],
    );
    return rows.map((r) => ({ ...r, rev: Number(r.rev) }));
  }

  /**
   * Stores file indexes in one update, after the tenant's shared row lock and the rows' locks in URI order;
   * rows rewritten since they were read are left for their own job.
   */
  async storeFileIndexes(accountId: string, files: FileIndex[], embedderId: string | null): Promise<number> {
    if (files.length === 0) return 0;
    // Not beside a tenant-wide removal (TenantBusy while one runs): see shareTenantRows.
    const uris = files.map((f) => f.uri);
    const { rowCount } = await this.db.transaction(async (tx) => {
      await shareTenantRows(tx, accountId);
      // The rows in URI order first, as writers lock them (node-write.ts): the UPDATE's join visits them in
      // its own order, and deadlocked with a batch write or another index job touching the same files.
      await tx.query(
        'SELECT 1 FROM nodes WHERE account_id = $1 AND uri = ANY($2::text[]) ORDER BY uri FOR NO KEY UPDATE',
        [accountId, uris],
      );
      return tx.query(
        `UPDATE nodes n SET abstract = u.abstract, search_text = u.search, embedding = u.vec::vector,
         embedder_id = CASE WHEN u.vec IS NULL THEN NULL ELSE $7 END, indexed_at = now()
       FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[]) AS u(uri, rev, abstract, search, vec)
       WHERE n.account_id = $1 AND n.uri = u.uri AND n.rev = u.rev`,
        [
          accountId,
          uris,
          files.map((f) => f.rev),
          files.map((f) => f.abstract),
          files.map((f) => f.searchText),
          files.map((f) => vectorText(f.embedding)),
          embedderId,
        ],
      );
    });
    return rowCount;
  }

  /**
   * Claims the refresh of a directory's summary. Granted when `force`d, or when the last refresh is at
   * least `intervalMs` old; otherwise the refresh is marked due at last + interval (coalescing every
   * change in between into that one refresh) and the caller learns how long to wait. The schedule
   * lives in `sidecar_state`, a narrow row: claiming never rewrites the directory's node row (and so
   * never its search and vector index entries). A directory that is gone loses its schedule.
   */
  async claimSidecar(accountId: string, uri: string, intervalMs: number, force: boolean): Promise<SidecarClaim> {
    const open = `($4::boolean OR s.refreshed_at IS NULL OR s.refreshed_at <= now() - $3 * interval '1 millisecond')`;
    const { rows } = await this.db.query<{
      claim: string;
      due: Date | null;
      delay_ms: number | null;
      scheduled: boolean;
      abstract: string;
      overview: string;
      indexed: boolean;
      embedder_id: string | null;
      description: string | null;
    }>(
      `WITH d AS (SELECT abstract, overview, indexed_at IS NOT NULL AS indexed, embedder_id, description FROM nodes
                  WHERE account_id = $1 AND uri = $2 AND kind = 'directory'),
            was AS (SELECT due FROM sidecar_state WHERE account_id = $1 AND uri = $2),
            c AS (INSERT INTO sidecar_state AS s (account_id, uri, refreshed_at, claim)
                  SELECT $1, $2, now(), 1 FROM d
                  ON CONFLICT (account_id, uri) DO UPDATE SET
                    claim = s.claim + CASE WHEN ${open} THEN 1 ELSE 0 END,
                    due = CASE WHEN ${open} THEN NULL ELSE COALESCE(s.due, s.refreshed_at + $3 * interval '1 millisecond') END,
                    refreshed_at = CASE WHEN ${open} THEN now() ELSE s.refreshed_at END
                  RETURNING claim, due, GREATEST(0, EXTRACT(EPOCH FROM (due - now())) * 1000)::float8 AS delay_ms)
       SELECT c.claim, c.due, c.delay_ms, d.abstract, d.overview, d.indexed, d.embedder_id, d.description,
              EXISTS (SELECT 1 FROM was WHERE was.due IS NOT NULL) AS scheduled FROM c, d`,
      [accountId, uri, intervalMs, force],
    );
    const r = rows[0];
    if (!r) {
      await this.db.query('DELETE FROM sidecar_state WHERE account_id = $1 AND uri = $2', [accountId, uri]);
      return { state: 'missing' };
    }
    if (r.due !== null) return { state: 'deferred', delayMs: Number(r.delay_ms ?? 0), scheduled: r.scheduled };
    return {
      state: 'claimed',
      claim: Number(r.claim),
      abstract: r.abstract,
      overview: r.overview,
      indexed: r.indexed,
      embedderId: r.embedder_id,
      description: r.description,
    };
  }

  /**
   * The first `cap` visible children of a directory (names, kinds, abstracts) and how many there are,
   * counted up to `countCap`: a summary costs the same in a directory of ten thousand files as in one of
   * a few hundred. A count (needed only when there are `cap` children or more) is remembered for
   * `recountMs`; within that time the remembered one is used and `recountInMs` says when it expires, so
   * the caller can schedule the refresh that takes it again.
   */
  async sidecarInputs(accountId: string, uri: string, cap: number, recountMs: number, countCap = 100_000) {
    const visible = `account_id = $1 AND parent_uri = $2 AND substr(uri, length($2) + 2, 1) <> '.'`;
    const { rows } = await this.db.query<{ uri: string; kind: 'file' | 'directory'; abstract: string }>(
      `SELECT uri, kind, abstract FROM nodes WHERE ${visible} ORDER BY uri LIMIT $3`,
      [accountId, uri, cap],
    );
    if (rows.length < cap) return { children: rows, total: rows.length, recountInMs: null };
    const { rows: kept } = await this.db.query<{ children: number; left_ms: number }>(
      `SELECT children, ($3 - EXTRACT(EPOCH FROM (now() - counted_at)) * 1000)::float8 AS left_ms FROM sidecar_state
       WHERE account_id = $1 AND uri = $2 AND children IS NOT NULL AND counted_at > now() - $3 * interval '1 millisecond'`,
      [accountId, uri, recountMs],
    );
    if (kept[0]) {
      const left = Math.max(1, Math.ceil(Number(kept[0].left_ms)));
      return { children: rows, total: Math.max(kept[0].children, rows.length), recountInMs: left };
    }
    const count = `(SELECT count(*)::int FROM (SELECT 1 FROM nodes WHERE ${visible} LIMIT $3) c)`;
    const { rows: n } = await this.db.query<{ n: number }>(
      `WITH n AS (SELECT ${count} AS n),
            s AS (UPDATE sidecar_state SET children = (SELECT n FROM n), counted_at = now() WHERE account_id = $1 AND uri = $2)
       SELECT n FROM n`,
      [accountId, uri, countCap],
    );
    return { children: rows, total: n[0].n, recountInMs: null };
  }

  /**
   * Stores a directory summary, unless a later claim took over the refresh meanwhile. The claim row is
   * locked until the summary is stored, so a later claim waits and then reads the children after it.
   */
  async storeSidecar(accountId: string, uri: string, claim: number, s: DirectorySummary): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Not beside a tenant-wide removal (it deletes nodes before sidecar_state): see shareTenantRows.
      await shareTenantRows(tx, accountId);
      const { rows } = await tx.query(
        'SELECT 1 FROM sidecar_state WHERE account_id = $1 AND uri = $2 AND claim = $3 FOR UPDATE',
        [accountId, uri, claim],
      );
      if (rows.length === 0) return false;
      const { rowCount } = await tx.query(
        `UPDATE nodes SET abstract = $3, overview = $4, search_text = $5, embedding = $6::vector, embedder_id = $7, indexed_at = now()
         WHERE account_id = $1 AND uri = $2 AND kind = 'directory'`,
        [accountId, uri, s.abstract, s.overview, s.searchText, vectorText(s.embedding), s.embedderId],
      );
      return rowCount > 0;
    });
  }

  /** Marks a directory's summary as due now (a refresh handed to a follow-up job). */
  async markSidecarDue(accountId: string, uri: string): Promise<void> {
    await this.db.query(
      `INSERT INTO sidecar_state AS s (account_id, uri, due)
       SELECT $1, $2, now() WHERE EXISTS (SELECT 1 FROM nodes WHERE account_id = $1 AND uri = $2 AND kind = 'directory')
       ON CONFLICT (account_id, uri) DO UPDATE SET due = COALESCE(s.due, now())`,
      [accountId, uri],
    );
  }

  /** Removes a finished outbox entry. */
  async finishOutbox(entry: OutboxEntryRef): Promise<void> {
    await this.db.query('DELETE FROM index_outbox WHERE id = $1 AND account_id = $2', [
      entry.outboxId,
      entry.accountId,
    ]);
  }

  /** Directories whose deferred refresh is overdue by `graceMs` (its job was lost): the relay re-enqueues them. */
  async overdueSidecars(limit: number, graceMs: number): Promise<{ accountId: string; uri: string }[]> {
    const { rows } = await this.db.query<{ account_id: string; uri: string }>(
      `SELECT account_id, uri FROM sidecar_state WHERE due < now() - $2 * interval '1 millisecond' ORDER BY due LIMIT $1`,
      [limit, graceMs],
    );
    return rows.map((r) => ({ accountId: r.account_id, uri: r.uri }));
  }
}

import { IndexJob } from '@app/contracts';
import { assertSubtreeChangeable, Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { Db } from '../db/db.port';
import { NODE_COLUMNS, NodeRow, toNodeRecord } from './node-row';
import { NodeRecord } from './node.types';
import { ensureDirectories, WriteItem, WriteManyOutcome, writeNodes, WriteOp, WriteOptions } from './node-write';
import { AccountUsage, enforceQuota, readUsage } from './account-usage';
import { deleteInSteps } from './delete-steps';
import { insertOutbox, OUTBOX_GRACE_MS } from './outbox';
import { scopeSql } from './scope';
import { assertWritable } from './write-access';

type Tx = Pick<Db, 'query' | 'kind'>;

/** The `viking://` tree. Every method is confined to what the caller's identity may see or change. */
export class NodeRepository {
  constructor(
    private readonly db: Db,
    private readonly options: WriteOptions = { graceMs: OUTBOX_GRACE_MS },
  ) {}

  /** One node, or null when it does not exist or lies outside the caller's view. */
  async get(identity: Identity, uri: string): Promise<NodeRecord | null> {
    const scope = scopeSql(identity, 2);
    const { rows } = await this.db.query<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE uri = $1 AND ${scope.sql}`, [
      uri,
      ...scope.params,
    ]);
    return rows[0] ? toNodeRecord(rows[0]) : null;
  }

  /**
   * Several nodes at once (missing or invisible ones are simply absent); `maxContentChars` cuts each
   * `content` in the store.
   */
  async getMany(identity: Identity, uris: string[], maxContentChars?: number): Promise<NodeRecord[]> {
    if (uris.length === 0) return [];
    const scope = scopeSql(identity, 3);
    const columns = NODE_COLUMNS.replace(
      'content,',
      'CASE WHEN $2::int IS NULL THEN content ELSE left(content, $2) END AS content,',
    );
    const { rows } = await this.db.query<NodeRow>(
      `SELECT ${columns} FROM nodes WHERE uri = ANY($1::text[]) AND ${scope.sql}`,
      [uris, maxContentChars ?? null, ...scope.params],
    );
    return rows.map(toNodeRecord);
  }

  /**
   * Stored bytes of each node's `content` and `overview` (missing or invisible nodes are absent), without reading
   * them: `octet_length` reads a stored value's size from its header. At least each text's length in characters.
   */
  async textBytes(identity: Identity, uris: string[]): Promise<Map<string, { content: number; overview: number }>> {
    if (uris.length === 0) return new Map();
    const scope = scopeSql(identity, 2);
    const { rows } = await this.db.query<{ uri: string; content: number; overview: number }>(
      `SELECT uri, octet_length(content) AS content, octet_length(overview) AS overview FROM nodes
       WHERE uri = ANY($1::text[]) AND ${scope.sql}`,
      [uris, ...scope.params],
    );
    return new Map(rows.map((r) => [r.uri, { content: Number(r.content ?? 0), overview: Number(r.overview ?? 0) }]));
  }

  /** Direct children (or the whole subtree) of a directory, ordered by URI. */
  async list(
    identity: Identity,
    uri: string,
    opts: { recursive?: boolean; limit?: number } = {},
  ): Promise<NodeRecord[]> {
    const scope = scopeSql(identity, 3);
    const atRoot = uri === 'viking://';
    const where = atRoot
      ? opts.recursive
        ? `$1::text IS NOT NULL`
        : `parent_uri IS NULL AND $1::text IS NOT NULL`
      : opts.recursive
        ? `uri LIKE $1 || '/%'`
        : `parent_uri = $1`;
    const { rows } = await this.db.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE ${where} AND ${scope.sql} ORDER BY uri LIMIT $2`,
      [escapeLike(uri, opts.recursive), opts.limit ?? 10000, ...scope.params],
    );
    return rows.map(toNodeRecord);
  }

  /**
   * The URIs and kinds of a directory's whole subtree, ordered by URI, at most `limit`: what a reindex queues. No
   * bodies: `list` reads each node's content, a gigabyte for a large subtree, of which a reindex needs none.
   */
  async subtree(
    identity: Identity,
    uri: string,
    limit: number,
  ): Promise<{ uri: string; kind: 'file' | 'directory' }[]> {
    const scope = scopeSql(identity, 3);
    const where = uri === 'viking://' ? '$1::text IS NOT NULL' : `uri LIKE $1 || '/%'`;
    const { rows } = await this.db.query<{ uri: string; kind: 'file' | 'directory' }>(
      `SELECT uri, kind FROM nodes WHERE ${where} AND ${scope.sql} ORDER BY uri LIMIT $2`,
      [escapeLike(uri, true), limit, ...scope.params],
    );
    return rows;
  }

  /** Writes one file (see {@link writeNodes}); `outcome.index` is the outbox entry to enqueue, if any. */
  async write(
    identity: Identity,
    input: WriteOp,
  ): Promise<WriteItem & { index: IndexJob | null; createdDirectories: string[] }> {
    const out = await this.writeMany(identity, [input]);
    return { ...out.items[0], index: out.index, createdDirectories: out.createdDirectories };
  }

  /** Writes several files in one transaction: all of them, or none (the first failure aborts the batch). */
  async writeMany(identity: Identity, ops: WriteOp[]): Promise<WriteManyOutcome> {
    for (const op of ops) assertWritable(identity, op.uri);
    return this.db.transaction((tx) => writeNodes(tx, identity, ops, this.options));
  }

  /** What the account stores (docs/limits-and-security.md, "Storage quota"): one index lookup. */
  async storage(accountId: string): Promise<AccountUsage> {
    const { nodes, contentBytes } = await readUsage(this.db, accountId);
    return { nodes, contentBytes };
  }

  /**
   * Creates a directory and its parents; succeeds when it already exists. A `description` is kept with the
   * directory (the head of its generated summaries) and is its abstract until the first refresh.
   */
  async mkdir(
    identity: Identity,
    uri: string,
    description?: string,
  ): Promise<{ created: string[]; index: IndexJob | null }> {
    assertWritable(identity, uri);
    return this.db.transaction(async (tx) => {
      const created = await ensureDirectories(tx, identity, [uri]);
      if (description)
        await tx.query(
          `UPDATE nodes SET description = $3, abstract = $3 WHERE account_id = $1 AND uri = $2 AND kind = 'directory'`,
          [identity.accountId, uri, description],
        );
      const index = created.length
        ? await insertOutbox(tx, identity.accountId, 'upsert', created, this.options.graceMs)
        : null;
      await enforceQuota(tx, identity.accountId, this.options.quota, { nodes: created.length, contentBytes: 0 });
      return { created, index };
    });
  }

  /** Deletes a node (and with `recursive`, its subtree); returns the deleted URIs. Deleting nothing succeeds. */
  async delete(
    identity: Identity,
    uri: string,
    recursive: boolean,
  ): Promise<{ deleted: string[]; index: IndexJob | null }> {
    assertWritable(identity, uri);
    return this.db.transaction(async (tx) => {
      const node = await this.lockRow(tx, identity, uri);
      if (!node) return { deleted: [], index: null };
      if (node.kind === 'directory' && recursive) assertSubtreeChangeable(identity, uri);
      if (node.kind === 'directory' && !recursive) {
        const inner = scopeSql(identity, 2);
        const { rows } = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM nodes WHERE uri LIKE $1 || '/%' AND ${inner.sql}`,
          [escapeLike(uri, true), ...inner.params],
        );
        if (rows[0].n > 0) {
          throw new KernelError(
            KernelErrorCode.FailedPrecondition,
            `Cannot remove directory without --recursive: ${uri}`,
            { resource: uri, expected_flag: 'recursive' },
          );
        }
      }
      const scope = scopeSql(identity, 3);
      // In steps of DELETE_STEP rows, inside the one transaction: a subtree of tens of thousands of nodes as
      // one statement would run past the store's statement timeout, and the delete would never succeed.
      const where = `(uri = $1 OR uri LIKE $2 || '/%') AND ${scope.sql}`;
      const params = [uri, escapeLike(uri, true), ...scope.params];
      const deleted = (await deleteInSteps(tx, 'nodes', where, params, DELETE_STEP, 'uri')).sort();
      // The index job of a delete refreshes the summary of the directory that held the node.
      const index = deleted.length
        ? await insertOutbox(tx, identity.accountId, 'delete', [uri], this.options.graceMs)
        : null;
      return { deleted, index };
    });
  }

  private async lockRow(tx: Tx, identity: Identity, uri: string): Promise<NodeRecord | null> {
    const scope = scopeSql(identity, 2);
    const lock = tx.kind === 'postgres' ? ' FOR UPDATE' : '';
    const { rows } = await tx.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE uri = $1 AND ${scope.sql}${lock}`,
      [uri, ...scope.params],
    );
    return rows[0] ? toNodeRecord(rows[0]) : null;
  }
}

/** Most nodes one statement of a recursive delete removes (docs/architecture.md, "Write path"). */
export const DELETE_STEP = 2000;

/** Escapes LIKE wildcards in a URI used as a prefix pattern. */
function escapeLike(uri: string, asPrefix = false): string {
  return asPrefix ? uri.replace(/[\\%_]/g, (c) => `\\${c}`) : uri;
}

import { IndexJob } from '@app/contracts';
import {
  assertSubtreeChangeable,
  canWrite,
  checkContentWrite,
  Identity,
  invalidArgument,
  isUnder,
  KernelError,
  KernelErrorCode,
} from '@app/kernel';
import { Db } from '../db/db.port';
import { AccountQuota, enforceQuota } from './account-usage';
import { ensureDirectories, writeNodes } from './node-write';
import { insertOutbox } from './outbox';
import { scopeSql } from './scope';
import { assertWritable } from './write-access';

/** Largest subtree one `mv` moves (it is one transaction). */
export const MAX_MOVE_NODES = 10_000;

interface MovedRow {
  uri: string;
  kind: 'file' | 'directory';
  content: string;
  tags: string[] | null;
  description: string | null;
}

/** Tree operations beyond single-file writes: move and retrieval tags (docs/fs-and-mcp.md, "File system"). */
export class NodeFsRepository {
  constructor(
    private readonly db: Db,
    private readonly graceMs: number,
    /**
     * Most content one `mv` moves (`MUNINN_MOVE_MAX_BYTES`): the move copies every body through this process, so
     * without it 10,000 large files would be gigabytes in one gateway's memory.
     */
    private readonly maxMoveBytes: number,
    /** Checked once the move is done: a move frees its source, so only what it adds on balance counts. */
    private readonly quota?: AccountQuota,
  ) {}

  /**
   * Moves a file or a subtree in one transaction: the nodes are re-created under `to` through the
   * ordinary write path (so ownership, context type and indexing follow the new place) and removed
   * from `from`. Returns the index jobs to dispatch.
   */
  async move(identity: Identity, from: string, to: string): Promise<IndexJob[]> {
    assertWritable(identity, from);
    assertWritable(identity, to);
    if (from === to || isUnder(to, from)) {
      throw invalidArgument(`cannot move ${from} into itself (${to})`, { field: 'to_uri' });
    }
    return this.db.transaction(async (tx) => {
      const scope = scopeSql(identity, 3);
      const lock = tx.kind === 'postgres' ? ' FOR UPDATE' : '';
      // Sizes first: the subtree's bodies are read into this process only once they are known to fit.
      const sized = await tx.query<{ uri: string; kind: 'file' | 'directory'; bytes: number }>(
        `SELECT uri, kind, coalesce(octet_length(content), 0)::int AS bytes FROM nodes WHERE (uri = $1 OR uri LIKE $2) AND ${scope.sql}
         ORDER BY uri LIMIT ${MAX_MOVE_NODES + 1}${lock}`,
        [from, below(from), ...scope.params],
      );
      const head = sized.rows.find((r) => r.uri === from);
      if (!head) {
        throw new KernelError(KernelErrorCode.NotFound, `File not found: ${from}`, { type: 'file', resource: from });
      }
      // Moving a directory removes its whole subtree: the rule of a recursive delete of it.
      if (head.kind === 'directory') assertSubtreeChangeable(identity, from, 'Moving');
      if (sized.rows.length > MAX_MOVE_NODES) {
        const message = `cannot move more than ${MAX_MOVE_NODES} nodes at once: ${from}`;
        throw invalidArgument(message, { field: 'from_uri', limit: MAX_MOVE_NODES });
      }
      const bytes = sized.rows.reduce((sum, r) => sum + r.bytes, 0);
      if (bytes > this.maxMoveBytes) {
        const message = `cannot move more than ${this.maxMoveBytes} bytes of content at once (${bytes} under ${from})`;
        throw invalidArgument(message, { field: 'from_uri', limit_bytes: this.maxMoveBytes });
      }
      const { rows } = await tx.query<MovedRow>(
        `SELECT uri, kind, content, tags, description FROM nodes WHERE uri = ANY($1::text[]) AND ${scopeSql(identity, 2).sql} ORDER BY uri`,
        [sized.rows.map((r) => r.uri), ...scope.params],
      );
      const source = rows.find((r) => r.uri === from)!;
      const dest = await tx.query<{ kind: string }>(`SELECT kind FROM nodes WHERE account_id = $1 AND uri = $2`, [
        identity.accountId,
        to,
      ]);
      if (dest.rows[0]?.kind === 'directory' && source.kind === 'file') {
        const message = `mv destination for a file must include the target file name: ${to}`;
        throw invalidArgument(message, { field: 'to_uri' });
      }
      if (dest.rows[0]) {
        throw new KernelError(KernelErrorCode.AlreadyExists, `File already exists: ${to}`, { resource: to });
      }
      const target = (uri: string) => to + uri.slice(from.length);
      const files = rows.filter((r) => r.kind === 'file');
      // Each file lands through the write rules at its new place, as a create of it would.
      for (const f of files) checkContentWrite(target(f.uri), 'create', 'to_uri');
      const dirs = rows.filter((r) => r.kind === 'directory').map((r) => target(r.uri));
      const jobs: IndexJob[] = [];
      const createdDirs = await ensureDirectories(tx, identity, dirs);
      // A directory made with a description keeps it at its new place (its refresh, below, is made from it).
      const described = rows.filter((r) => r.kind === 'directory' && r.description);
      if (described.length)
        await tx.query(
          `UPDATE nodes n SET description = u.d FROM unnest($2::text[], $3::text[]) AS u(uri, d)
           WHERE n.account_id = $1 AND n.uri = u.uri AND n.kind = 'directory'`,
          [identity.accountId, described.map((r) => target(r.uri)), described.map((r) => r.description)],
        );
      if (createdDirs.length) {
        jobs.push(await insertOutbox(tx, identity.accountId, 'upsert', createdDirs, this.graceMs));
      }
      if (files.length) {
        const ops = files.map((f) => ({
          uri: target(f.uri),
          content: f.content,
          mode: 'create' as const,
          tags: f.tags ?? [],
        }));
        const written = await writeNodes(tx, identity, ops, { graceMs: this.graceMs });
        if (written.index) jobs.push(written.index);
      }
      await tx.query(`DELETE FROM nodes WHERE account_id = $1 AND uri = ANY($2::text[])`, [
        identity.accountId,
        rows.map((r) => r.uri),
      ]);
      jobs.push(await insertOutbox(tx, identity.accountId, 'delete', [from], this.graceMs));
      await enforceQuota(tx, identity.accountId, this.quota, {
        nodes: createdDirs.length + files.length - rows.length,
        contentBytes: 0,
      });
      return jobs;
    });
  }

  /**
   * Writes a directory's `.abstract.md` / `.overview.md` body (kept as columns of the directory node,
   * not as files): `updated`, `unchanged` when the body already equals the result (nothing written), or
   * `missing` when the directory does not exist.
   */
  async writeSidecar(
    identity: Identity,
    dirUri: string,
    which: 'abstract' | 'overview',
    text: string,
    append: boolean,
  ): Promise<'updated' | 'unchanged' | 'missing'> {
    if (!canWrite(identity, dirUri)) {
      const message = `Access denied for ${dirUri} (outside your writable space)`;
      throw new KernelError(KernelErrorCode.PermissionDenied, message, { resource: dirUri });
    }
    const scope = scopeSql(identity, 3);
    const value = append ? `${which} || $2` : '$2';
    const { rows } = await this.db.query<{ uri: string }>(
      `UPDATE nodes SET ${which} = ${value}, updated_at = now()
       WHERE uri = $1 AND kind = 'directory' AND ${scope.sql} AND ${which} IS DISTINCT FROM ${value} RETURNING uri`,
      [dirUri, text, ...scope.params],
    );
    if (rows.length > 0) return 'updated';
    const visible = scopeSql(identity, 2);
    const found = await this.db.query<{ uri: string }>(
      `SELECT uri FROM nodes WHERE uri = $1 AND kind = 'directory' AND ${visible.sql}`,
      [dirUri, ...visible.params],
    );
    return found.rows.length > 0 ? 'unchanged' : 'missing';
  }

  /**
   * Replaces (or extends) the retrieval tags of a node, or of its whole subtree with `recursive`.
   * Search filters read the column directly, so nothing needs re-indexing. Returns the updated URIs.
   */
  async setTags(
    identity: Identity,
    uri: string,
    tags: string[],
    mode: 'replace' | 'append',
    recursive: boolean,
    limit: number,
  ): Promise<string[]> {
    const scope = scopeSql(identity, 6);
    // Append ($4) keeps the old tags whose key the new ones do not set: a later value for a key wins.
    const kept = `ARRAY(SELECT t FROM unnest(tags) t WHERE $4::boolean AND split_part(t, '=', 1) <> ALL($5::text[]))`;
    const targets = `SELECT uri FROM nodes WHERE (uri = $1 OR uri LIKE $2::text) AND ${scope.sql}
       ORDER BY uri LIMIT $${6 + scope.params.length}`;
    const { rows } = await this.db.query<{ uri: string }>(
      `UPDATE nodes SET tags = ${kept} || $3::text[], updated_at = now()
       WHERE uri IN (${targets}) AND ${scope.sql} RETURNING uri`,
      [
        uri,
        recursive ? below(uri) : null,
        tags,
        mode === 'append',
        tags.map((t) => t.split('=')[0]),
        ...scope.params,
        limit,
      ],
    );
    return rows.map((r) => r.uri).sort();
  }
}

/** LIKE pattern of everything strictly below `uri`. */
function below(uri: string): string {
  return `${uri.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

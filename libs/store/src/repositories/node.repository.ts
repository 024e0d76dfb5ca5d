import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { Db } from '../db/db.port';
import { ancestors, nodePath } from './node-path';
import { NODE_COLUMNS, NodeRow, toNodeRecord } from './node-row';
import { IndexUpdate, NodeRecord, WriteInput, WriteOutcome } from './node.types';
import { scopeSql } from './scope';
import { assertWritable } from './write-access';

type Tx = Pick<Db, 'query' | 'kind'>;

/** The `viking://` tree. Every method is confined to what the caller's identity may see or change. */
export class NodeRepository {
  constructor(private readonly db: Db) {}

  /** One node, or null when it does not exist or lies outside the caller's view. */
  async get(identity: Identity, uri: string): Promise<NodeRecord | null> {
    const scope = scopeSql(identity, 2);
    const { rows } = await this.db.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE uri = $1 AND ${scope.sql}`,
      [uri, ...scope.params],
    );
    return rows[0] ? toNodeRecord(rows[0]) : null;
  }

  /** Several nodes at once (missing or invisible ones are simply absent). */
  async getMany(identity: Identity, uris: string[]): Promise<NodeRecord[]> {
    if (uris.length === 0) return [];
    const scope = scopeSql(identity, 2);
    const { rows } = await this.db.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE uri = ANY($1::text[]) AND ${scope.sql}`,
      [uris, ...scope.params],
    );
    return rows.map(toNodeRecord);
  }

  /** Direct children (or the whole subtree) of a directory, ordered by URI. */
  async list(identity: Identity, uri: string, opts: { recursive?: boolean; limit?: number } = {}): Promise<NodeRecord[]> {
    const scope = scopeSql(identity, 3);
    const atRoot = uri === 'viking://';
    const where = atRoot ? (opts.recursive ? `$1::text IS NOT NULL` : `parent_uri IS NULL AND $1::text IS NOT NULL`) : opts.recursive ? `uri LIKE $1 || '/%'` : `parent_uri = $1`;
    const { rows } = await this.db.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE ${where} AND ${scope.sql} ORDER BY uri LIMIT $2`,
      [escapeLike(uri, opts.recursive), opts.limit ?? 10000, ...scope.params],
    );
    return rows.map(toNodeRecord);
  }

  /** Writes a file, creating its parent directories; `create` refuses to overwrite. */
  async write(identity: Identity, input: WriteInput): Promise<WriteOutcome> {
    assertWritable(identity, input.uri);
    return this.db.transaction(async (tx) => {
      const createdDirectories = await this.ensureDirectories(tx, identity, nodePath(input.uri).parentUri);
      const existing = await this.lockRow(tx, identity, input.uri);
      if (existing?.kind === 'directory') {
        throw new KernelError(KernelErrorCode.InvalidArgument, `write only supports existing files, got directory: ${input.uri}`, { resource: input.uri, expected: 'file', actual: 'directory' });
      }
      if (existing && input.mode === 'create') {
        throw new KernelError(KernelErrorCode.AlreadyExists, `File already exists: ${input.uri}`, { resource: input.uri, type: 'file' });
      }
      if (!existing && input.mode !== 'create') {
        throw new KernelError(KernelErrorCode.NotFound, `File not found: ${input.uri}`, { type: 'file', resource: input.uri });
      }
      const content = existing && input.mode === 'append' ? existing.content + input.content : input.content;
      const p = nodePath(input.uri);
      await tx.query(
        `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, peer_id, content, tags)
         VALUES ($1, $2, $3, 'file', $4, $5, $6, $7, $8)
         ON CONFLICT (account_id, uri) DO UPDATE SET content = EXCLUDED.content,
           tags = CASE WHEN $9::boolean THEN EXCLUDED.tags ELSE nodes.tags END, updated_at = now(), indexed_at = NULL`,
        [identity.accountId, input.uri, p.parentUri, p.contextType, p.ownerUserId, p.peerId, content,
          input.tags ?? [], input.tags !== undefined],
      );
      return { uri: input.uri, created: !existing, createdDirectories, size: Buffer.byteLength(content, 'utf8') };
    });
  }

  /** Creates a directory and its parents; succeeds when it already exists. */
  async mkdir(identity: Identity, uri: string): Promise<string[]> {
    assertWritable(identity, uri);
    return this.db.transaction((tx) => this.ensureDirectories(tx, identity, uri));
  }

  /** Sets a directory's abstract from a user-given description (mkdir). */
  async setDescription(identity: Identity, uri: string, description: string): Promise<void> {
    assertWritable(identity, uri);
    const scope = scopeSql(identity, 3);
    await this.db.query(`UPDATE nodes SET abstract = $2, updated_at = now() WHERE uri = $1 AND kind = 'directory' AND ${scope.sql}`, [uri, description, ...scope.params]);
  }

  /** Deletes a node (and with `recursive`, its subtree); returns the deleted URIs. Deleting nothing succeeds. */
  async delete(identity: Identity, uri: string, recursive: boolean): Promise<string[]> {
    assertWritable(identity, uri);
    return this.db.transaction(async (tx) => {
      const node = await this.lockRow(tx, identity, uri);
      if (!node) return [];
      if (node.kind === 'directory' && !recursive) {
        const inner = scopeSql(identity, 2);
        const { rows } = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM nodes WHERE uri LIKE $1 || '/%' AND ${inner.sql}`,
          [escapeLike(uri, true), ...inner.params],
        );
        if (rows[0].n > 0) {
          throw new KernelError(KernelErrorCode.FailedPrecondition, `Cannot remove directory without --recursive: ${uri}`, { resource: uri, expected_flag: 'recursive' });
        }
      }
      const scope = scopeSql(identity, 3);
      const { rows } = await tx.query<{ uri: string }>(
        `DELETE FROM nodes WHERE (uri = $1 OR uri LIKE $2 || '/%') AND ${scope.sql} RETURNING uri`,
        [uri, escapeLike(uri, true), ...scope.params],
      );
      return rows.map((r) => r.uri).sort();
    });
  }

  /** Stores what the indexer computed. Account-scoped system write (the indexer acts for the writer). */
  async setIndex(accountId: string, uri: string, update: IndexUpdate): Promise<boolean> {
    const vec = update.embedding ? `[${Array.from(update.embedding, (x) => +x.toFixed(6)).join(',')}]` : null;
    const { rowCount } = await this.db.query(
      `UPDATE nodes SET abstract = $3, overview = COALESCE($4, overview), search_text = $5, embedding = $6::vector,
         embedder_id = $7, indexed_at = now() WHERE account_id = $1 AND uri = $2`,
      [accountId, uri, update.abstract, update.overview ?? null, update.searchText, vec, update.embedderId],
    );
    return rowCount > 0;
  }

  /** A node read by the indexer on behalf of the account (no user scoping: the write was already authorised). */
  async getForIndex(accountId: string, uri: string): Promise<NodeRecord | null> {
    const { rows } = await this.db.query<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE account_id = $1 AND uri = $2`, [accountId, uri]);
    return rows[0] ? toNodeRecord(rows[0]) : null;
  }

  /** Children of a directory for sidecar refresh (indexer side): names, kinds and abstracts only. */
  async childrenForIndex(accountId: string, uri: string, limit = 500): Promise<{ uri: string; kind: 'file' | 'directory'; abstract: string }[]> {
    const { rows } = await this.db.query<{ uri: string; kind: 'file' | 'directory'; abstract: string }>(
      `SELECT uri, kind, abstract FROM nodes WHERE account_id = $1 AND parent_uri = $2 ORDER BY uri LIMIT $3`,
      [accountId, uri, limit],
    );
    return rows;
  }

  private async lockRow(tx: Tx, identity: Identity, uri: string): Promise<NodeRecord | null> {
    const scope = scopeSql(identity, 2);
    const lock = tx.kind === 'postgres' ? ' FOR UPDATE' : '';
    const { rows } = await tx.query<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE uri = $1 AND ${scope.sql}${lock}`, [uri, ...scope.params]);
    return rows[0] ? toNodeRecord(rows[0]) : null;
  }

  private async ensureDirectories(tx: Tx, identity: Identity, dirUri: string | null): Promise<string[]> {
    if (!dirUri) return [];
    const chain = [dirUri, ...ancestors(dirUri)].reverse();
    const created: string[] = [];
    for (const dir of chain) {
      const p = nodePath(dir);
      const { rows } = await tx.query<{ uri: string }>(
        `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, peer_id)
         VALUES ($1, $2, $3, 'directory', $4, $5, $6) ON CONFLICT (account_id, uri) DO NOTHING RETURNING uri`,
        [identity.accountId, dir, p.parentUri, p.contextType, p.ownerUserId, p.peerId],
      );
      if (rows.length > 0) {
        created.push(dir);
        continue;
      }
      const { rows: kinds } = await tx.query<{ kind: string }>('SELECT kind FROM nodes WHERE account_id = $1 AND uri = $2', [identity.accountId, dir]);
      if (kinds[0]?.kind === 'file') {
        throw new KernelError(KernelErrorCode.Conflict, `${dir} is a file, not a directory`, { uri: dir });
      }
    }
    return created;
  }
}

/** Escapes LIKE wildcards in a URI used as a prefix pattern. */
function escapeLike(uri: string, asPrefix = false): string {
  return asPrefix ? uri.replace(/[\\%_]/g, (c) => `\\${c}`) : uri;
}

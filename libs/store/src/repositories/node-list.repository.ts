import { Identity } from '@app/kernel';
import { Db } from '../db/db.port';
import { scopeSql } from './scope';

/** A node as listings show it: its size is counted in SQL, its body never leaves the store. */
export interface NodeEntry {
  uri: string;
  kind: 'file' | 'directory';
  abstract: string;
  updatedAt: string;
  /** UTF-8 bytes of the body. */
  size: number;
}

interface EntryRow {
  uri: string;
  kind: 'file' | 'directory';
  abstract: string;
  updated_at: Date | string;
  size: number;
}

const ENTRY_COLUMNS = 'uri, kind, abstract, updated_at, octet_length(content)::int AS size';
/** `count` in a directory's stat stops here (the former listing stopped at the same number). */
export const MAX_SUBTREE_COUNT = 10_000;

/** Listings and stats of the `viking://` tree (fs ls/stat), scoped like every store read. */
export class NodeListRepository {
  constructor(private readonly db: Db) {}

  async entry(identity: Identity, uri: string): Promise<NodeEntry | null> {
    const scope = scopeSql(identity, 2);
    const { rows } = await this.db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM nodes WHERE uri = $1 AND ${scope.sql}`,
      [uri, ...scope.params],
    );
    return rows[0] ? toEntry(rows[0]) : null;
  }

  /** Direct children (or the whole subtree) of a directory, ordered by URI. */
  async entries(
    identity: Identity,
    uri: string,
    opts: { recursive?: boolean; limit?: number } = {},
  ): Promise<NodeEntry[]> {
    const scope = scopeSql(identity, 3);
    const where = `${under(uri, opts.recursive ?? false)} AND ${scope.sql}`;
    const { rows } = await this.db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM nodes WHERE ${where} ORDER BY uri LIMIT $2`,
      [opts.recursive ? escapeLike(uri) : uri, opts.limit ?? MAX_SUBTREE_COUNT, ...scope.params],
    );
    return rows.map(toEntry);
  }

  /**
   * Whether index work is still pending on the node or below it: a write, move or delete whose outbox
   * entry has not finished (its search entries and directory summaries are not yet current). This is
   * what `isLocked` reports in fs stat; Muninn has no other path locks (docs/fs-and-mcp.md).
   */
  async indexPending(accountId: string, uri: string): Promise<boolean> {
    const { rows } = await this.db.query<{ pending: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM index_outbox o WHERE o.account_id = $1
         AND EXISTS (SELECT 1 FROM unnest(o.uris) u WHERE u = $2 OR u LIKE $3 || '/%')) AS pending`,
      [accountId, uri, escapeLike(uri)],
    );
    return rows[0]?.pending === true;
  }

  /** Nodes below a directory (at any depth), counted up to MAX_SUBTREE_COUNT. */
  async countUnder(identity: Identity, uri: string): Promise<number> {
    const scope = scopeSql(identity, 3);
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM nodes WHERE ${under(uri, true)} AND ${scope.sql} LIMIT $2) s`,
      [escapeLike(uri), MAX_SUBTREE_COUNT, ...scope.params],
    );
    return rows[0]?.n ?? 0;
  }
}

function under(uri: string, recursive: boolean): string {
  if (uri === 'viking://') return recursive ? '$1::text IS NOT NULL' : 'parent_uri IS NULL AND $1::text IS NOT NULL';
  return recursive ? `uri LIKE $1 || '/%'` : 'parent_uri = $1';
}

function toEntry(r: EntryRow): NodeEntry {
  const updatedAt = new Date(r.updated_at).toISOString();
  return { uri: r.uri, kind: r.kind, abstract: r.abstract, updatedAt, size: Number(r.size) };
}

/** Escapes LIKE wildcards in a URI used as a prefix pattern. */
function escapeLike(uri: string): string {
  return uri.replace(/[\\%_]/g, (c) => `\\${c}`);
}

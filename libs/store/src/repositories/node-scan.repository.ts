import { Identity } from '@app/kernel';
import { Db } from '../db/db.port';
import { refusedPattern } from './regex-refusal';
import { scopeSql } from './scope';

// Grep and glob over a caller's tree (docs/fs-and-mcp.md, "Grep and glob"). Both run as one SQL
// statement each, with the pattern already checked by the kernel to lie in the regex subset
// PostgreSQL evaluates without backtracking; the statement timeout bounds the rest.

export interface GrepQuery {
  /** Canonical base: a directory (searched below) or one file. */
  uri: string;
  /** PostgreSQL regex from `toSafeRegex`. */
  regex: string;
  caseInsensitive: boolean;
  /** Files whose path below `uri` has more segments than this are skipped. */
  levelLimit: number;
  excludeUri: string | null;
  /** Files read at most (in URI order). */
  maxFiles: number;
  /** Matching lines returned at most. */
  maxLines: number;
}

export interface GrepRow {
  uri: string;
  contextType: 'memory' | 'resource' | 'skill';
  line: number;
  content: string;
}

export interface GlobRow {
  uri: string;
  kind: 'file' | 'directory';
}

const slashes = (col: string) => `(length(${col}) - length(replace(${col}, '/', '')))`;

export class NodeScanRepository {
  constructor(private readonly db: Db) {}

  async grep(identity: Identity, q: GrepQuery): Promise<{ rows: GrepRow[]; filesScanned: number }> {
    const scope = scopeSql(identity, 7);
    const files = `SELECT uri, context_type, content FROM nodes
      WHERE kind = 'file' AND (uri = $1 OR uri LIKE $2) AND ${slashes('uri')} - $3 <= $4
        AND ($5::text IS NULL OR NOT (uri = $5 OR uri LIKE $6)) AND ${scope.sql}
      ORDER BY uri LIMIT $${7 + scope.params.length}`;
    const base = [
      q.uri,
      prefixPattern(q.uri),
      slashCount(q.uri),
      q.levelLimit,
      q.excludeUri,
      q.excludeUri ? prefixPattern(q.excludeUri) : null,
      ...scope.params,
      q.maxFiles,
    ];
    const op = q.caseInsensitive ? '~*' : '~';
    const n = base.length;
    type Row = { uri: string; context_type: GrepRow['contextType']; line: number; content: string };
    const { rows } = await this.db
      .query<Row>(
        `WITH files AS (${files})
       SELECT f.uri, f.context_type, l.n::int AS line, l.text AS content
       FROM files f CROSS JOIN LATERAL string_to_table(f.content, E'\\n') WITH ORDINALITY AS l(text, n)
       WHERE l.text ${op} $${n + 1}
       ORDER BY f.uri, l.n LIMIT $${n + 2}`,
        [...base, q.regex, q.maxLines],
      )
      .catch(refusedPattern('pattern'));
    const count = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${files}) f`, base);
    return {
      rows: rows.map((r) => ({ uri: r.uri, contextType: r.context_type, line: Number(r.line), content: r.content })),
      filesScanned: count.rows[0]?.n ?? 0,
    };
  }

  /** Nodes below `uri` whose relative path matches `regex` (anchored); dot-named segments never match. */
  async glob(identity: Identity, uri: string, regex: string, limit: number): Promise<GlobRow[]> {
    const scope = scopeSql(identity, 4);
    const start = uri === 'viking://' ? uri.length + 1 : uri.length + 2;
    const { rows } = await this.db
      .query<GlobRow>(
        `SELECT uri, kind FROM nodes
       WHERE uri LIKE $1 AND substr(uri, $2) ~ $3 AND substr(uri, $2) !~ '(^|/)\\.' AND ${scope.sql}
       ORDER BY uri LIMIT $${4 + scope.params.length}`,
        [prefixPattern(uri), start, regex, ...scope.params, limit],
      )
      .catch(refusedPattern('pattern'));
    return rows;
  }
}

/** LIKE pattern of everything strictly below `uri`. */
function prefixPattern(uri: string): string {
  if (uri === 'viking://') return 'viking://_%';
  return `${uri.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

/** Slashes in the base, so a node's depth below it is its own slash count minus this. */
function slashCount(uri: string): number {
  // `viking://resources` (a child of the root, depth 1) has two slashes, so the root counts as one.
  return uri === 'viking://' ? 1 : uri.split('/').length - 1;
}

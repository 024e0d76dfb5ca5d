import { Identity } from '@app/kernel';
import { Db } from '../db/db.port';
import { refusedPattern } from './regex-refusal';
import { scopeSql } from './scope';

// Grep and glob over a caller's tree (docs/fs-and-mcp.md, "Grep and glob"). Both run as one SQL
// statement each, with the pattern already checked by the kernel to lie in the regex subset
// PostgreSQL evaluates without backtracking. Grep reads whole files up to a byte bound, so its cost
// (about 4 ms per MB on the shared embedded store) is bounded by configuration, not by a tenant's data.

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
  /** Content bytes read at most: files in URI order, up to the first whose bytes would pass this. */
  maxBytes: number;
  /** Characters of one returned line at most (plus a … marker at each cut end). */
  maxLineChars: number;
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

  async grep(
    identity: Identity,
    q: GrepQuery,
    signal?: AbortSignal,
  ): Promise<{ rows: GrepRow[]; filesScanned: number; filesSkipped: number }> {
    const scope = scopeSql(identity, 7);
    const at = 7 + scope.params.length; // $at: candidates listed, then the file and byte bounds
    // Metadata first: octet_length is read from the TOAST header, so sizing a file never reads its content.
    // One file past the file bound is listed, so a cut by either bound shows as a skipped file.
    const sized = `SELECT uri, context_type, row_number() OVER w AS rank, sum(bytes) OVER w AS upto
      FROM (SELECT uri, context_type, octet_length(content) AS bytes FROM nodes
        WHERE kind = 'file' AND (uri = $1 OR uri LIKE $2) AND ${slashes('uri')} - $3 <= $4
          AND ($5::text IS NULL OR NOT (uri = $5 OR uri LIKE $6)) AND ${scope.sql}
        ORDER BY uri LIMIT $${at}) c
      WINDOW w AS (ORDER BY uri ROWS UNBOUNDED PRECEDING)`;
    const read = `rank <= $${at + 1} AND upto <= $${at + 2}::bigint`;
    const base = [
      q.uri,
      prefixPattern(q.uri),
      slashCount(q.uri),
      q.levelLimit,
      q.excludeUri,
      q.excludeUri ? prefixPattern(q.excludeUri) : null,
      ...scope.params,
      q.maxFiles + 1,
      q.maxFiles,
      q.maxBytes,
    ];
    const n = base.length;
    const [re, limit, chars, flags] = [`$${n + 1}`, `$${n + 2}`, `$${n + 3}::int`, `$${n + 4}`];
    // A line longer than the bound leaves the store as `chars` characters around the match's start,
    // with … at each cut end (docs/fs-and-mcp.md, "Grep and glob"), so a huge line never travels.
    const cut = `(SELECT CASE WHEN w.s > 1 THEN '…' ELSE '' END || substr(l.text, w.s, ${chars})
        || CASE WHEN w.s + ${chars} <= length(l.text) THEN '…' ELSE '' END
      FROM (SELECT greatest(1, least(regexp_instr(l.text, ${re}, 1, 1, 0, ${flags}) - ${chars} / 2,
        length(l.text) - ${chars} + 1)) AS s) w)`;
    type Row = { uri: string; context_type: GrepRow['contextType']; line: number; content: string };
    const { rows } = await this.db
      .query<Row>(
        `WITH sized AS (${sized}),
         files AS (SELECT s.uri, s.context_type, f.content FROM sized s
           JOIN nodes f ON f.account_id = $7 AND f.uri = s.uri WHERE ${read})
       SELECT f.uri, f.context_type, l.n::int AS line,
         CASE WHEN length(l.text) <= ${chars} THEN l.text ELSE ${cut} END AS content
       FROM files f CROSS JOIN LATERAL string_to_table(f.content, E'\\n') WITH ORDINALITY AS l(text, n)
       WHERE l.text ${q.caseInsensitive ? '~*' : '~'} ${re}
       ORDER BY f.uri, l.n LIMIT ${limit}`,
        [...base, q.regex, q.maxLines, q.maxLineChars, q.caseInsensitive ? 'i' : ''],
        { signal },
      )
      .catch(refusedPattern('pattern'));
    const count = await this.db.query<{ scanned: number; listed: number }>(
      `SELECT count(*) FILTER (WHERE ${read})::int AS scanned, count(*)::int AS listed FROM (${sized}) s`,
      base,
      { signal },
    );
    const { scanned = 0, listed = 0 } = count.rows[0] ?? {};
    return {
      rows: rows.map((r) => ({ uri: r.uri, contextType: r.context_type, line: Number(r.line), content: r.content })),
      filesScanned: scanned,
      filesSkipped: listed - scanned,
    };
  }

  /** Nodes below `uri` whose relative path matches `regex` (anchored); dot-named segments never match. */
  async glob(identity: Identity, uri: string, regex: string, limit: number, signal?: AbortSignal): Promise<GlobRow[]> {
    const scope = scopeSql(identity, 4);
    const start = uri === 'viking://' ? uri.length + 1 : uri.length + 2;
    const { rows } = await this.db
      .query<GlobRow>(
        `SELECT uri, kind FROM nodes
       WHERE uri LIKE $1 AND substr(uri, $2) ~ $3 AND substr(uri, $2) !~ '(^|/)\\.' AND ${scope.sql}
       ORDER BY uri LIMIT $${4 + scope.params.length}`,
        [prefixPattern(uri), start, regex, ...scope.params, limit],
        { signal },
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

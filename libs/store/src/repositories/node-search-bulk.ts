import { Db } from '../db/db.port';
import { nodePath } from './node-path';

/** One already-indexed node for a bulk load. */
export interface IndexedNodeInput {
  uri: string;
  kind: 'file' | 'directory';
  content: string;
  abstract: string;
  overview?: string;
  searchText: string;
  embedding: Float32Array | null;
  tags?: string[];
}

/**
 * Inserts (or replaces) many indexed nodes of one account in one statement per batch, through
 * `unnest` arrays: the path for bulk loads (imports, benchmarks) that would take minutes through
 * per-write transactions. Parents are not created; callers pass directories like any other node.
 * The rows are visible to search at once, as if their `index` jobs had completed.
 */
export async function bulkInsertIndexed(
  db: Db,
  accountId: string,
  nodes: IndexedNodeInput[],
  embedderId: string | null,
): Promise<number> {
  if (nodes.length === 0) return 0;
  const cols = {
    uri: [] as string[],
    parent: [] as (string | null)[],
    kind: [] as string[],
    ctype: [] as string[],
    owner: [] as (string | null)[],
    peer: [] as (string | null)[],
    content: [] as string[],
    abstract: [] as string[],
    overview: [] as string[],
    search: [] as string[],
    vec: [] as (string | null)[],
    tags: [] as string[],
  };
  for (const n of nodes) {
    const p = nodePath(n.uri);
    cols.uri.push(n.uri);
    cols.parent.push(p.parentUri);
    cols.kind.push(n.kind);
    cols.ctype.push(p.contextType);
    cols.owner.push(p.ownerUserId);
    cols.peer.push(p.peerId);
    cols.content.push(n.content);
    cols.abstract.push(n.abstract);
    cols.overview.push(n.overview ?? '');
    cols.search.push(n.searchText);
    cols.vec.push(n.embedding ? `[${Array.from(n.embedding, (x) => +x.toFixed(6)).join(',')}]` : null);
    // text[][] must be rectangular, so tags travel as JSON text and are unpacked per row.
    cols.tags.push(JSON.stringify(n.tags ?? []));
  }
  const { rowCount } = await db.query(
    `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, peer_id, content, abstract, overview,
                        search_text, embedding, embedder_id, tags, indexed_at)
     SELECT $1, u.uri, u.parent, u.kind, u.ctype, u.owner, u.peer, u.content, u.abstract, u.overview, u.search, u.vec::vector,
            CASE WHEN u.vec IS NULL THEN NULL ELSE $14 END, ARRAY(SELECT jsonb_array_elements_text(u.tags::jsonb)), now()
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                 $11::text[], $12::text[], $13::text[])
          AS u(uri, parent, kind, ctype, owner, peer, content, abstract, overview, search, vec, tags)
     ON CONFLICT (account_id, uri) DO UPDATE SET content = EXCLUDED.content, abstract = EXCLUDED.abstract,
       overview = EXCLUDED.overview, search_text = EXCLUDED.search_text, embedding = EXCLUDED.embedding,
       embedder_id = EXCLUDED.embedder_id, tags = EXCLUDED.tags, updated_at = now(), indexed_at = now()`,
    [
      accountId,
      cols.uri,
      cols.parent,
      cols.kind,
      cols.ctype,
      cols.owner,
      cols.peer,
      cols.content,
      cols.abstract,
      cols.overview,
      cols.search,
      cols.vec,
      cols.tags,
      embedderId,
    ],
  );
  return rowCount;
}

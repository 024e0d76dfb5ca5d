import { NodeRecord } from './node.types';

/** Columns every node read selects (never the embedding). */
export const NODE_COLUMNS =
  'uri, parent_uri, kind, context_type, abstract, overview, content, tags, created_at, updated_at, embedder_id, indexed_at';

export interface NodeRow {
  uri: string;
  parent_uri: string | null;
  kind: 'file' | 'directory';
  context_type: 'memory' | 'resource' | 'skill';
  abstract: string;
  overview: string;
  content: string;
  tags: string[] | null;
  created_at: Date | string;
  updated_at: Date | string;
  embedder_id: string | null;
  indexed_at: Date | string | null;
}

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

export function toNodeRecord(r: NodeRow): NodeRecord {
  return {
    uri: r.uri,
    parentUri: r.parent_uri,
    kind: r.kind,
    contextType: r.context_type,
    abstract: r.abstract,
    overview: r.overview,
    content: r.content,
    tags: r.tags ?? [],
    createdAt: iso(r.created_at) as string,
    updatedAt: iso(r.updated_at) as string,
    embedderId: r.embedder_id,
    indexedAt: iso(r.indexed_at),
  };
}

/** One node of the `viking://` tree as the store returns it (no embedding). */
export interface NodeRecord {
  uri: string;
  parentUri: string | null;
  kind: 'file' | 'directory';
  contextType: 'memory' | 'resource' | 'skill';
  abstract: string;
  overview: string;
  content: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  embedderId: string | null;
  indexedAt: string | null;
}

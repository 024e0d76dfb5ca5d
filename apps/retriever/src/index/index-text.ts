/** Index-time text shared by file and directory indexing. */

/** The words of a node's name: `travel-plans_2024.md` → `travel plans 2024`. */
export function baseNameWords(uri: string): string {
  return uri
    .slice(uri.lastIndexOf('/') + 1)
    .replace(/\.[a-z0-9]+$/i, '')
    .replace(/[_-]+/g, ' ');
}

/** What is embedded: the node's name words and its abstract (memory abstracts are whole bodies). */
export function embeddingText(uri: string, abstract: string): string {
  return `${baseNameWords(uri)}\n${abstract}`.slice(0, 8000);
}

/** The directory holding `uri`, or null at a top-level node (the scheme root is never summarised). */
export function parentDirectory(uri: string): string | null {
  const rest = uri.slice('viking://'.length);
  const cut = rest.lastIndexOf('/');
  return cut > 0 ? `viking://${rest.slice(0, cut)}` : null;
}

/** `viking://user` and `viking://user/{u}/peers`: directories spanning separately scoped subtrees. */
export function isCollection(uri: string): boolean {
  return uri === 'viking://user' || /^viking:\/\/user\/[^/]+\/peers$/.test(uri);
}

/** DI token of the embedder index work goes through (one that batches concurrent jobs' texts). */
export const INDEX_EMBEDDER = Symbol('INDEX_EMBEDDER');

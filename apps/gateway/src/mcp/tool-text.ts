// The text an MCP tool answers with (§12). The full REST `result` travels beside it as
// `structuredContent`, so a program can read entries and stats while an agent reads the text.

export const NO_CONTEXT_TEXT = 'No matching context found.';
export const NO_RECALL_TEXT = 'No relevant memories found.';

interface ContextResult {
  rendered?: unknown;
  digest?: unknown;
}

interface Hit {
  context_type?: unknown;
  uri?: unknown;
  score?: unknown;
  abstract?: unknown;
}

interface ListResult {
  memories?: Hit[];
  resources?: Hit[];
  skills?: Hit[];
}

/** A context answer as text: the digest if non-empty, else the rendered block, else `fallback`. */
export function contextText(result: ContextResult, fallback: string): string {
  const digest = typeof result.digest === 'string' ? result.digest.trim() : '';
  if (digest) return digest;
  const rendered = typeof result.rendered === 'string' ? result.rendered.trim() : '';
  return rendered || fallback;
}

/** A list answer (`find`, `search` list mode) as text: one line per hit, best first within each type. */
export function listText(result: ListResult): string {
  const hits = [...(result.memories ?? []), ...(result.resources ?? []), ...(result.skills ?? [])];
  if (hits.length === 0) return NO_CONTEXT_TEXT;
  const lines = hits.map((h) => {
    const score = typeof h.score === 'number' ? Math.round(h.score * 100) : 0;
    const abstract = (typeof h.abstract === 'string' ? h.abstract.trim() : '') || '(no abstract)';
    return `- [${String(h.context_type)} ${score}%] ${String(h.uri)}\n    ${abstract}`;
  });
  return `Found ${hits.length} item(s):\n\n${lines.join('\n')}\n\nUse the read tool to expand a URI.`;
}

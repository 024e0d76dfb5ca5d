// The text an MCP tool answers with (docs/contract.md#mcp-tools). The full REST `result` travels beside it as
// `structuredContent`, so a program can read entries and stats while an agent reads the text.

import { cutAtWord } from '@app/kernel';

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

// Texts of the file-system tools (docs/fs-and-mcp.md, "MCP tools"), byte for byte the reference's.

export interface TreeLine {
  rel: string;
  depth: number;
  kind: 'file' | 'directory';
  size: number;
  abstract?: string;
}

/** Characters of a file's abstract on its tree line: a memory's abstract is its body (up to 16,000). */
const TREE_ABSTRACT_CHARS = 256;

/**
 * One line of abstract: cut first (a tree of 1,000 memories carried 16 MB), then lines joined by one
 * space by splitting, not by `\s*\n\s*`, which rescans every long run of blanks without a newline.
 */
function treeAbstract(text: string): string {
  const head = cutAtWord(text, TREE_ABSTRACT_CHARS);
  return head
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}

export function treeText(
  uri: string,
  levelLimit: number,
  nodeLimit: number,
  lines: TreeLine[],
  includeAbstract: boolean,
): string {
  const n = lines.length;
  const out = [`Tree of ${uri} (depth <= ${levelLimit}, ${n} ${n === 1 ? 'entry' : 'entries'}):`];
  for (const e of lines) {
    const indent = '  '.repeat(e.depth - 1);
    const name = e.rel.split('/').pop()!;
    out.push(e.kind === 'directory' ? `${indent}${name}/` : `${indent}${name} (${e.size} B)`);
    const abstract = treeAbstract(e.abstract ?? '');
    if (includeAbstract && e.kind === 'file' && abstract) out.push(`${indent}  - ${abstract}`);
  }
  if (n >= nodeLimit) {
    out.push(`(truncated at node_limit=${nodeLimit}; narrow the uri or raise node_limit to see more)`);
  }
  return out.join('\n');
}

export interface GrepLine {
  uri: string;
  line: number;
  content: string;
  pattern: string;
}

export function grepText(patterns: string[], lines: GrepLine[]): string {
  if (lines.length === 0) return `No matches found for pattern(s): ${patterns.join(', ')}`;
  const byFile = new Map<string, GrepLine[]>();
  for (const l of lines) byFile.set(l.uri, [...(byFile.get(l.uri) ?? []), l]);
  const out = [`Found ${lines.length} match(es) across ${patterns.length} pattern(s):`];
  for (const [uri, hits] of byFile) {
    out.push('', uri);
    for (const h of [...hits].sort((a, b) => a.line - b.line)) out.push(`  L${h.line} [${h.pattern}]: ${h.content}`);
  }
  return out.join('\n');
}

export function globText(pattern: string, matches: string[]): string {
  if (matches.length === 0) return `No files found matching: ${pattern}`;
  return [`Found ${matches.length} file(s):`, ...matches.map((m) => `  ${m}`)].join('\n');
}

export interface WriteStatus {
  semantic_status?: unknown;
  vector_status?: unknown;
  overview_status?: unknown;
}

/** The indexing sentence shared by `write` and `edit`. */
export function indexingText(s: WriteStatus): string {
  const overview = s.overview_status ? `, overview=${String(s.overview_status)}` : '';
  let text = `Indexing: semantic=${String(s.semantic_status)}, vector=${String(s.vector_status)}${overview}.`;
  if (s.semantic_status === 'queued' || s.vector_status === 'queued') {
    text +=
      ' Search indexes update in the background; ' +
      'pass wait=true if a follow-up search must see this change immediately.';
  }
  return text;
}

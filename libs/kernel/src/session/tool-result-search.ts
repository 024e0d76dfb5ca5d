/** One match of a tool-result search: its offset and the text around it, both in code points. */
export interface ToolResultMatch {
  offset: number;
  snippet: string;
}

/**
 * Simple case folding, one code point to one code point (so offsets in the folded text are offsets
 * in the original): a code point whose lower case is longer (`İ`) stays as it is.
 */
function fold(cp: string): string {
  const lower = cp.toLowerCase();
  return lower.length === cp.length ? lower : cp;
}

/**
 * Literal, case-insensitive search of `query` in `content`, in time linear in both (Knuth–Morris–Pratt
 * over code points; the query is never a pattern language). Matches do not overlap; at most `limit`,
 * each with up to `contextChars` code points on either side. See docs/sessions.md "Tool results".
 */
export function searchToolResult(
  content: string,
  query: string,
  o: { limit: number; contextChars: number },
): ToolResultMatch[] {
  const text = Array.from(content);
  const q = Array.from(query).map(fold);
  if (q.length === 0 || o.limit <= 0) return [];
  const fail = failureTable(q);
  const matches: ToolResultMatch[] = [];
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    const c = fold(text[i]);
    while (k > 0 && c !== q[k]) k = fail[k - 1];
    if (c === q[k]) k++;
    if (k === q.length) {
      const start = i - q.length + 1;
      const from = Math.max(0, start - o.contextChars);
      matches.push({ offset: start, snippet: text.slice(from, i + 1 + o.contextChars).join('') });
      if (matches.length >= o.limit) break;
      k = 0; // no overlapping matches
    }
  }
  return matches;
}

/** KMP failure function: for each prefix, the length of its longest proper border. */
function failureTable(q: string[]): number[] {
  const fail = new Array<number>(q.length).fill(0);
  let k = 0;
  for (let i = 1; i < q.length; i++) {
    while (k > 0 && q[i] !== q[k]) k = fail[k - 1];
    if (q[i] === q[k]) k++;
    fail[i] = k;
  }
  return fail;
}

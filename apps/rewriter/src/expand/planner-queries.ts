/** At most this many raw queries are taken from an answer (the gateway keeps the first new ones). */
const MAX_QUERIES = 10;
const MAX_QUERY_CHARS = 500;

/**
 * The queries in a planner's answer, tolerant of what models actually send: a JSON object with a
 * `queries` (or any array) field, a JSON array of strings or `{query}` objects, JSON inside a code
 * fence or prose, or else one query per line with list markers and quotes removed.
 */
export function parsePlannerQueries(raw: string): string[] {
  const text = raw.trim();
  if (!text) return [];
  const json = parseJson(text);
  const items = json === undefined ? fromLines(text) : fromJson(json);
  return items
    .map((q) => q.trim())
    .filter((q) => q.length > 0 && q.length <= MAX_QUERY_CHARS)
    .slice(0, MAX_QUERIES);
}

function parseJson(text: string): unknown {
  const fenced = fencedBlock(text);
  const candidates = [text, fenced, span(text, '{', '}'), span(text, '[', ']')];
  for (const c of candidates) {
    if (!c) continue;
    try {
      return JSON.parse(c) as unknown;
    } catch {
      /* try the next shape */
    }
  }
  return undefined;
}

/**
 * The text of the answer's first code fence, its `json` tag left out. Found by index, not by a pattern: a
 * model's answer has no length bound, and a fence pattern rescanned a long whitespace run from each space.
 */
function fencedBlock(text: string): string | undefined {
  const open = text.indexOf('```');
  const close = open < 0 ? -1 : text.indexOf('```', open + 3);
  return close < 0
    ? undefined
    : text
        .slice(open + 3, close)
        .replace(/^json/i, '')
        .trim();
}

function span(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

function fromJson(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(item);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const list = Array.isArray(o.queries) ? o.queries : Object.values(o).find(Array.isArray);
    return Array.isArray(list) ? list.flatMap(item) : [];
  }
  return [];
}

function item(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const text = o.query ?? o.text ?? o.q;
    return typeof text === 'string' ? [text] : [];
  }
  return [];
}

function fromLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('```') && !line.endsWith(':'))
    .map((line) => line.replace(/^(?:[-*•]|\d+[.)])\s+/, '').replace(/^(["'`])(.*)\1[,]?$/, '$2'));
}

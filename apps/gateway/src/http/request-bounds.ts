import type { AppConfig } from '@app/config';
import { ValidationIssue } from './error-envelope';

type Limits = AppConfig['limits'];
type Loc = (string | number)[];

/** The bound of one named field: characters of a string (each item's, for a list) and items of a list. */
export interface FieldBound {
  maxChars?: number;
  maxItems?: number;
  /** Only on these routes (a field name such as `content` means different things elsewhere). */
  route?: RegExp;
}

const MESSAGES = /^\/api\/v1\/sessions\/[^/]+\/messages/;
/** Free text may quote a `viking://` URI at any length; only the URI checks are skipped for it. */
const FREE_TEXT = new Set(['query', 'content', 'content_base64', 'text', 'description', 'abstract']);
const VIKING = 'viking://';

/**
 * Field bounds by field name, from config, wherever the field appears in a body or query (also
 * inside MCP tool arguments). The same table sets `maxLength`/`maxItems` in the OpenAPI document.
 */
export function fieldBounds(l: Limits): Record<string, FieldBound> {
  const uri = { maxChars: l.uriMaxChars, maxItems: l.uriListMaxItems };
  return {
    query: { maxChars: l.queryMaxChars },
    uri,
    root_uri: uri,
    target_uri: uri,
    exclude_uris: uri,
    tags: { maxChars: l.tagMaxChars, maxItems: l.tagsMaxItems },
    operations: { maxItems: l.batchMaxOps },
    description: { maxChars: l.descriptionMaxChars },
    session_id: { maxChars: 128 },
    content: { maxChars: l.messageMaxChars, route: MESSAGES },
    text: { maxChars: l.messageMaxChars, route: MESSAGES },
  };
}

/**
 * One iterative pass over a parsed body or query, before any handler sees it
 * (docs/limits-and-security.md, "Request bounds"): nesting depth, NUL characters (PostgreSQL text
 * cannot store them) in any string or key, the named field bounds, and the length, segment length
 * and depth of every `viking://` URI. Returns the first problem found, naming where it is.
 */
export function boundsIssue(input: unknown, where: 'body' | 'query', route: string, l: Limits): ValidationIssue | null {
  const table = fieldBounds(l);
  const stack: { value: unknown; loc: Loc; field: string | null }[] = [{ value: input, loc: [where], field: null }];
  while (stack.length > 0) {
    const { value, loc, field } = stack.pop()!;
    const bound = field !== null && Object.hasOwn(table, field) ? table[field] : undefined;
    const applies = bound && (!bound.route || bound.route.test(route));
    if (typeof value === 'string') {
      const issue = stringIssue(value, loc, applies ? bound : undefined, field !== null && FREE_TEXT.has(field), l);
      if (issue) return issue;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (loc.length - 1 >= l.bodyMaxDepth) {
      // Named by its top-level field: the full location would be as long as the nesting itself.
      return { loc: loc.slice(0, 2), message: `Input nests deeper than ${l.bodyMaxDepth} levels`, type: 'too_deep' };
    }
    if (Array.isArray(value)) {
      if (applies && bound.maxItems !== undefined && value.length > bound.maxItems) {
        return { loc, message: `List should have at most ${bound.maxItems} items after validation, not ${value.length}`, type: 'too_long' };
      }
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], loc: [...loc, i], field });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (key.includes('\u0000')) return nul([...loc, key]);
      stack.push({ value: (value as Record<string, unknown>)[key], loc: [...loc, key], field: key });
    }
  }
  return null;
}

function stringIssue(value: string, loc: Loc, bound: FieldBound | undefined, freeText: boolean, l: Limits): ValidationIssue | null {
  if (value.includes('\u0000')) return nul(loc);
  if (bound?.maxChars !== undefined && value.length > bound.maxChars) return tooLong(loc, bound.maxChars);
  if (freeText || !value.startsWith(VIKING)) return null;
  if (value.length > l.uriMaxChars) return tooLong(loc, l.uriMaxChars);
  let depth = 0;
  let start = VIKING.length;
  while (start <= value.length) {
    let end = value.indexOf('/', start);
    if (end < 0) end = value.length;
    if (end > start) depth++;
    if (end - start > l.uriMaxSegmentChars) {
      return { loc, message: `URI path segments should have at most ${l.uriMaxSegmentChars} characters`, type: 'uri_segment_too_long' };
    }
    start = end + 1;
  }
  if (depth > l.uriMaxDepth) return { loc, message: `URI should have at most ${l.uriMaxDepth} path segments, not ${depth}`, type: 'uri_too_deep' };
  return null;
}

function tooLong(loc: Loc, max: number): ValidationIssue {
  return { loc, message: `String should have at most ${max} characters`, type: 'string_too_long' };
}

function nul(loc: Loc): ValidationIssue {
  return { loc, message: 'Input should not contain NUL (\\u0000) characters', type: 'string_nul' };
}

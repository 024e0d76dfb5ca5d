import type { AppConfig } from '@app/config';
import { BUCKET_KEYS, CATEGORY_KEYS, uriShapeIssue } from '@app/kernel';
import { ValidationIssue } from './error-envelope';

type Limits = AppConfig['limits'];
type Loc = (string | number)[];

/** The bound of one named field: characters of a string (each item's, for a list) and items of a list. */
export interface FieldBound {
  maxChars?: number;
  maxItems?: number;
  /** Largest value of a number. */
  maximum?: number;
  /** Keys of an object (a per-category map). */
  maxProperties?: number;
  /** Only on these routes (a field name such as `content` means different things elsewhere)… */
  route?: RegExp;
  /** …and, in the OpenAPI document, only in this schema. */
  schema?: string;
}

const MESSAGES = /^\/api\/v1\/sessions\/[^/]+\/messages/;
const USED = /^\/api\/v1\/sessions\/[^/]+\/used/;
/** Free text may quote a `viking://` URI at any length; only the URI checks are skipped for it. */
const FREE_TEXT = new Set(['query', 'content', 'content_base64', 'text', 'description', 'abstract', 'input', 'output']);
const VIKING = 'viking://';
/**
 * A surrogate code unit that is not half of a pair. JSON's `\ud800` escape makes one; UTF-8 cannot
 * encode it, so PostgreSQL refused the JSON columns (a 500) and text columns got U+FFFD instead of
 * what the client sent. With the `u` flag a well-formed pair is one code point outside `Cs`, so
 * this matches only the unpaired halves, in one linear scan.
 */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * Keys no body may carry: `__proto__` would reach the prototype, and the DTO transform reads a
 * nested object's `constructor` as its class (a string there throws inside class-transformer).
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Field bounds by field name, from config, wherever the field appears in a body or query (also
 * inside MCP tool arguments). The same table sets `maxLength`/`maxItems` in the OpenAPI document.
 */
export function fieldBounds(l: Limits): Record<string, FieldBound> {
  const uri = { maxChars: l.uriMaxChars, maxItems: l.uriListMaxItems };
  const id = { maxChars: l.idMaxChars };
  return {
    query: { maxChars: l.queryMaxChars },
    uri,
    root_uri: uri,
    target_uri: uri,
    exclude_uris: uri,
    contexts: uri,
    tags: { maxChars: l.tagMaxChars, maxItems: l.tagsMaxItems },
    operations: { maxItems: l.batchMaxOps },
    description: { maxChars: l.descriptionMaxChars },
    session_id: id,
    account_id: id,
    // The accounts' paging cursor: an account id (GET /admin/accounts?after=).
    after: id,
    admin_user_id: id,
    user_id: id,
    peer_id: id,
    turn_id: id,
    message_kind: id,
    created_at: { ...id, schema: 'AddMessageDto' },
    source_message_ids: { ...id, maxItems: l.uriListMaxItems },
    content: { maxChars: l.messageMaxChars, route: MESSAGES, schema: 'AddMessageDto' },
    text: { maxChars: l.messageMaxChars, route: MESSAGES, schema: 'AddMessageDto' },
    input: { maxChars: l.messageMaxChars, route: USED, schema: 'UsedSkillDto' },
    output: { maxChars: l.messageMaxChars, route: USED, schema: 'UsedSkillDto' },
    // The find fields that are neither free text nor URIs: a type name, a date, a level list, an image URL.
    context_type: { ...id, maxItems: l.uriListMaxItems },
    since: id,
    until: id,
    level: { ...id, maxItems: l.uriListMaxItems },
    image_url: { maxChars: l.uriMaxChars },
    // Per-category maps: their keys are the categories (unknown keys are refused by name as well). `detail` is
    // also a tier name; MCP recall's `detail` and `peer_scope` are lax strings.
    quotas: { maxProperties: BUCKET_KEYS.length },
    detail: { ...id, maxProperties: CATEGORY_KEYS.length },
    other_peer_penalty: { maxProperties: CATEGORY_KEYS.length },
    peer_scope: id,
    // MCP `read`'s URIs (the URI check bounds only strings that look like URIs).
    uris: { maxChars: l.uriMaxChars },
    // Path parameters (the gate's `path` pass; `in: path` in the OpenAPI document).
    sessionId: id,
    accountId: id,
    userId: id,
    archiveId: id,
    taskId: id,
    toolResultId: id,
    timeout: { maximum: l.waitMaxSeconds },
    previous_key_valid_s: { maximum: l.keyRotationGraceMaxS },
  };
}

/**
 * Bounds of fields the table leaves alone because another check refuses past them: a grep or glob `pattern`
 * (toSafeRegex, globToRegex), and a file's text (`content`, `content_base64`) or an MCP edit's strings, which
 * cannot be longer than the body that carries them. The OpenAPI document and `tools/list` show them beside the
 * table's.
 */
export function boundsCheckedElsewhere(config: AppConfig): Record<string, FieldBound> {
  const body = { maxChars: config.http.bodyLimitBytes };
  return {
    pattern: { maxChars: config.filter.maxPatternLength },
    content: body,
    content_base64: body,
    old_string: body,
    new_string: body,
  };
}

/**
 * One iterative pass over a parsed body or query, before any handler sees it
 * (docs/limits-and-security.md, "Request bounds"): nesting depth, NUL characters (PostgreSQL text
 * cannot store them) and unpaired surrogates (UTF-8 has no encoding for them) in any string or key,
 * reserved keys (`constructor`, `__proto__`, `prototype`),
 * the named field bounds, and the length, segment length and depth of every `viking://` URI. Returns the first problem found, naming where it is.
 */
export function boundsIssue(
  input: unknown,
  where: 'body' | 'query' | 'path',
  route: string,
  l: Limits,
): ValidationIssue | null {
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
    if (typeof value === 'number') {
      if (applies && bound.maximum !== undefined && value > bound.maximum) return tooLarge(loc, bound.maximum);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (loc.length - 1 >= l.bodyMaxDepth) {
      // Named by its top-level field: the full location would be as long as the nesting itself.
      return { loc: loc.slice(0, 2), message: `Input nests deeper than ${l.bodyMaxDepth} levels`, type: 'too_deep' };
    }
    if (Array.isArray(value)) {
      if (applies && bound.maxItems !== undefined && value.length > bound.maxItems) {
        return {
          loc,
          message: `List should have at most ${bound.maxItems} items after validation, not ${value.length}`,
          type: 'too_long',
        };
      }
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], loc: [...loc, i], field });
      continue;
    }
    const keys = Object.keys(value);
    if (applies && bound.maxProperties !== undefined && keys.length > bound.maxProperties) {
      return {
        loc,
        message: `Dictionary should have at most ${bound.maxProperties} items, not ${keys.length}`,
        type: 'too_long',
      };
    }
    for (const key of keys) {
      if (key.includes('\u0000')) return nul([...loc, key]);
      if (UNPAIRED_SURROGATE.test(key)) return unpaired([...loc, key]);
      if (RESERVED_KEYS.has(key)) return reserved([...loc, key]);
      stack.push({ value: (value as Record<string, unknown>)[key], loc: [...loc, key], field: key });
    }
  }
  return null;
}

function stringIssue(
  value: string,
  loc: Loc,
  bound: FieldBound | undefined,
  freeText: boolean,
  l: Limits,
): ValidationIssue | null {
  if (value.includes('\u0000')) return nul(loc);
  if (UNPAIRED_SURROGATE.test(value)) return unpaired(loc);
  if (bound?.maxChars !== undefined && value.length > bound.maxChars) return tooLong(loc, bound.maxChars);
  if (freeText || !value.startsWith(VIKING)) return null;
  const issue = uriShapeIssue(value, {
    maxChars: l.uriMaxChars,
    maxDepth: l.uriMaxDepth,
    maxSegmentChars: l.uriMaxSegmentChars,
  });
  return issue && { loc, ...issue };
}

function tooLong(loc: Loc, max: number): ValidationIssue {
  return { loc, message: `String should have at most ${max} characters`, type: 'string_too_long' };
}

function tooLarge(loc: Loc, max: number): ValidationIssue {
  return { loc, message: `Input should be less than or equal to ${max}`, type: 'less_than_equal' };
}

function reserved(loc: Loc): ValidationIssue {
  return {
    loc,
    message: 'Input should not use a reserved key (constructor, __proto__, prototype)',
    type: 'reserved_key',
  };
}

function unpaired(loc: Loc): ValidationIssue {
  return {
    loc,
    message: 'Input should not contain unpaired UTF-16 surrogates (\\ud800-\\udfff without their pair)',
    type: 'string_unpaired_surrogate',
  };
}

function nul(loc: Loc): ValidationIssue {
  return { loc, message: 'Input should not contain NUL (\\u0000) characters', type: 'string_nul' };
}

// An OpenAPI document is an untyped JSON tree here; walking it with `unknown` would be casts on every line.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

/**
 * Writes the field bounds into an OpenAPI document: `maxLength`/`maxItems`/`maximum`/`maxProperties` on
 * bodies, query and path parameters, and `headers`' bounds on the header parameters of those names (the
 * gate does not walk headers: each one's own check refuses it, e.g. Idempotency-Key's), and the
 * `checkedElsewhere` bounds ({@link boundsCheckedElsewhere}) on body fields the table leaves alone.
 */
export function applyBoundsToOpenApi(
  doc: Schema,
  l: Limits,
  headers: Record<string, FieldBound> = {},
  checkedElsewhere: Record<string, FieldBound> = {},
): void {
  const table = fieldBounds(l);
  const schemas: Record<string, Schema> = doc.components?.schemas ?? {};
  for (const name of requestSchemas(doc, schemas)) {
    for (const [field, prop] of Object.entries<Schema>(schemas[name].properties ?? {})) {
      const bound = Object.hasOwn(table, field) ? table[field] : undefined;
      if (bound && (!bound.schema || bound.schema === name)) bindSchema(prop, bound);
      else if (Object.hasOwn(checkedElsewhere, field)) bindSchema(prop, checkedElsewhere[field]!);
    }
  }
  for (const item of Object.values<Schema>(doc.paths ?? {})) {
    for (const op of Object.values<Schema>(item)) {
      for (const p of (op?.parameters ?? []) as Schema[]) {
        const named = p.in === 'query' || p.in === 'path' ? table : p.in === 'header' ? headers : {};
        const bound = Object.hasOwn(named, p.name) ? named[p.name] : undefined;
        if (bound && !bound.schema && p.schema) bindSchema(p.schema, bound);
      }
    }
  }
}

/** Names of the component schemas request bodies use, directly or through other schemas. */
function requestSchemas(doc: Schema, schemas: Record<string, Schema>): Set<string> {
  const found = new Set<string>();
  const todo: unknown[] = [];
  for (const item of Object.values<Schema>(doc.paths ?? {})) {
    for (const op of Object.values<Schema>(item)) todo.push(op?.requestBody);
  }
  while (todo.length > 0) {
    const node = todo.pop();
    if (node === null || typeof node !== 'object') continue;
    const ref = (node as Schema).$ref;
    if (typeof ref === 'string') {
      const name = ref.slice(ref.lastIndexOf('/') + 1);
      if (!found.has(name) && schemas[name]) {
        found.add(name);
        todo.push(schemas[name]);
      }
      continue;
    }
    todo.push(...Object.values(node));
  }
  return found;
}

/** Writes one field's bound into its schema (each alternative of a union; a list's string items). */
export function bindSchema(s: Schema, bound: FieldBound): void {
  for (const alt of [...(s.oneOf ?? []), ...(s.anyOf ?? [])] as Schema[]) bindSchema(alt, bound);
  if (s.type === 'string' && bound.maxChars !== undefined) s.maxLength = bound.maxChars;
  if ((s.type === 'number' || s.type === 'integer') && bound.maximum !== undefined) s.maximum = bound.maximum;
  if ((s.type === 'object' || s.additionalProperties) && bound.maxProperties !== undefined) {
    s.maxProperties = bound.maxProperties;
  }
  if (s.type === 'array') {
    if (bound.maxItems !== undefined) s.maxItems = bound.maxItems;
    if (s.items?.type === 'string' && bound.maxChars !== undefined) s.items.maxLength = bound.maxChars;
  }
}

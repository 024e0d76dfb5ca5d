import { invalidArgument } from '@app/kernel';

// Each MCP tool becomes the JSON body of the REST route it mirrors, so the tool runs through the same
// validation and services and answers what `POST` with that body answers. A field the caller left out
// stays out of the body: the route's own defaults then apply (docs/contract.md#mcp-tools).

type Body = Record<string, unknown>;
type Tier = 'abstract' | 'overview' | 'full';

export interface FindToolArgs {
  query: string;
  target_uri?: string;
  limit?: number;
  min_score?: number;
  level?: number[];
  context_type?: string | string[];
}

export interface SearchToolArgs extends FindToolArgs {
  mode?: 'list' | 'context';
  session_id?: string;
  query_expansion?: 'off' | 'auto';
  max_tokens?: number;
  quotas?: Record<string, number>;
  purpose?: 'chat' | 'coding';
  detail?: 'auto' | Tier;
  detail_by_category?: Record<string, Tier>;
  dedup_turns?: number;
  exclude_uris?: string[];
  peer_scope?: 'actor' | 'all';
  other_peer_penalty?: number;
  other_peer_penalties?: Record<string, number>;
  rewrite?: 'off' | 'auto';
  rewrite_max_bullets?: number;
}

export interface RecallToolArgs {
  query: string;
  quotas?: Record<string, number>;
  max_chars?: number;
  min_score?: number;
  peer_scope?: string;
  other_peer_penalty?: number;
  session_id?: string;
  detail?: string;
  max_tokens?: number;
  rewrite?: boolean;
}

/** The reference tools' `min_score` default in list mode. */
export const LIST_MIN_SCORE = 0.35;
const PINNABLE = new Set(['auto', 'abstract', 'overview', 'full']);

/** Copies the given keys that are present (not undefined/null) from `args` into `body`. */
function copyPresent(body: Body, args: object, keys: readonly string[]): Body {
  for (const key of keys) {
    const value = (args as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) body[key] = value;
  }
  return body;
}

/** `find` → `POST /api/v1/search/find` (min_score defaults to 0.35, as in the reference tool). */
export function findToolBody(args: FindToolArgs): Body {
  const body = copyPresent({ query: args.query }, args, ['target_uri', 'limit', 'level', 'context_type']);
  body['score_threshold'] = args.min_score ?? LIST_MIN_SCORE;
  return body;
}

/**
 * `search` → `POST /api/v1/search/search`. List mode keeps the 0.35 threshold default; context mode
 * sends no threshold unless `min_score` is given. `detail_by_category` and `other_peer_penalties`
 * are the tool's typed spellings of the route's union fields; `rewrite:"auto"` forces a rewrite.
 */
export function searchToolBody(args: SearchToolArgs): Body {
  const context = args.mode === 'context';
  const body: Body = { query: args.query };
  if (context) body['mode'] = 'context';
  copyPresent(body, args, ['target_uri', 'limit', 'context_type', 'session_id']);
  if (!context) copyPresent(body, args, ['level']);
  if (args.min_score !== undefined) body['score_threshold'] = args.min_score;
  else if (!context) body['score_threshold'] = LIST_MIN_SCORE;
  // Context-only fields go through in list mode too, so the route answers its docs/contract.md#cross-field-validation
  // 400 for them.
  copyPresent(body, args, [
    'query_expansion',
    'max_tokens',
    'quotas',
    'purpose',
    'dedup_turns',
    'exclude_uris',
    'peer_scope',
    'rewrite_max_bullets',
  ]);
  const detail = args.detail ?? 'auto';
  if (args.detail_by_category !== undefined) {
    if (detail !== 'auto')
      throw invalidArgument(
        'detail and detail_by_category are mutually exclusive; set detail to "auto" or drop detail_by_category',
      );
    body['detail'] = args.detail_by_category;
  } else if (detail !== 'auto') body['detail'] = detail;
  if (args.other_peer_penalty !== undefined && args.other_peer_penalties !== undefined) {
    throw invalidArgument('other_peer_penalty and other_peer_penalties are mutually exclusive; send one of them');
  }
  const penalty = args.other_peer_penalties ?? args.other_peer_penalty;
  if (penalty !== undefined) body['other_peer_penalty'] = penalty;
  if (args.rewrite === 'auto') body['rewrite'] = true;
  return body;
}

/**
 * The legacy `recall` tool → `POST /api/v1/search/recall` (docs/contract.md#mcp-tools at #3534): omitted arguments stay
 * unsent, `max_chars` is coerced to max(1, int), `peer_scope` other than "actor" means "all", and an
 * unknown `detail` string degrades to the default (no pin) instead of a 400.
 */
export function recallToolBody(args: RecallToolArgs): Body {
  const body = copyPresent({ query: args.query }, args, [
    'quotas',
    'min_score',
    'other_peer_penalty',
    'session_id',
    'max_tokens',
  ]);
  if (args.max_chars !== undefined) body['max_chars'] = Math.max(1, Math.trunc(args.max_chars));
  if (args.peer_scope !== undefined) body['peer_scope'] = args.peer_scope === 'actor' ? 'actor' : 'all';
  if (args.detail !== undefined && PINNABLE.has(args.detail)) body['detail'] = args.detail;
  if (args.rewrite) body['rewrite'] = true;
  return body;
}

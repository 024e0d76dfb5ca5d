import { pyInt, pyFloat, isPlainObject } from '../text/py-coerce';
import { PeerScope } from '../gathering/retrieval-plan';
import { Purpose, RECALL_DEFAULT_QUOTAS } from '../gathering/quotas';
import { parseRewrite, RewriteMode } from './rewrite-mode';
import { CONTEXT_BOUNDS, CONTEXT_DEFAULTS } from './context-bounds';
import { roundHalfEven } from './round-half-even';

/** v1 names `/recall` still accepts, in the order `aliases_used` reports them. */
export const V1_ALIASES = ['max_chars', 'min_score', 'render'] as const;
export type V1Alias = (typeof V1_ALIASES)[number];

/** A `/recall` body folded onto the context-request contract (docs/contract.md#folding). */
export interface FoldedRecall {
  query: string;
  maxTokens: number;
  scoreThreshold: number;
  /** false → `rendered` is "" (entries still returned). */
  render: boolean;
  /** Raw `detail` to resolve with `normalizeDetail`; null = no pin. */
  detail: unknown;
  /** Raw quota map to resolve with `resolveQuotas`; null = purpose preset. */
  quotas: Record<string, unknown> | null;
  purpose: Purpose;
  dedupTurns: number;
  queryExpansion: 'off' | 'auto';
  limit: number;
  peerScope: PeerScope;
  otherPeerPenalty: unknown;
  rewrite: RewriteMode;
  rewriteMaxBullets: number;
  sessionId: string | null;
  excludeUris: string[];
  aliasesUsed: V1Alias[];
}

/** `/recall`'s `score_threshold` when neither it nor `min_score` is given (docs/contract.md#folding). */
export const RECALL_SCORE_THRESHOLD = 0.1;
const RECALL_DEDUP_TURNS = 5;

/**
 * Fold a schema-valid `/recall` body (docs/contract.md#folding). "Provided" = key present with a non-null value, except
 * `quotas` (presence).
 */
export function foldRecallRequest(body: Readonly<Record<string, unknown>>): FoldedRecall {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(body, key);
  const provided = (key: string) => has(key) && body[key] !== null && body[key] !== undefined;

  let maxTokens: number = CONTEXT_DEFAULTS.maxTokens;
  if (provided('max_tokens')) maxTokens = pyInt(body['max_tokens']) ?? CONTEXT_DEFAULTS.maxTokens;
  else if (provided('max_chars'))
    maxTokens = Math.max(CONTEXT_BOUNDS.maxTokens.min, roundHalfEven((pyInt(body['max_chars']) ?? 0) / 4));

  let scoreThreshold = RECALL_SCORE_THRESHOLD;
  if (provided('score_threshold')) scoreThreshold = pyFloat(body['score_threshold']) ?? RECALL_SCORE_THRESHOLD;
  else if (provided('min_score')) scoreThreshold = pyFloat(body['min_score']) ?? RECALL_SCORE_THRESHOLD;

  const renderValue = body['render'] ?? true;
  let detail: unknown = null;
  if (provided('detail')) detail = body['detail'];
  else if (renderValue === 'compact') detail = 'abstract';

  let quotas: Record<string, unknown> | null = { ...RECALL_DEFAULT_QUOTAS };
  if (has('quotas')) {
    const explicit = body['quotas'];
    quotas = isPlainObject(explicit) ? { ...RECALL_DEFAULT_QUOTAS, ...explicit } : null;
  }

  const sessionId = typeof body['session_id'] === 'string' && body['session_id'] ? body['session_id'] : null;
  const dedupTurns = provided('dedup_turns') ? (pyInt(body['dedup_turns']) ?? 0) : sessionId ? RECALL_DEDUP_TURNS : 0;

  return {
    query: typeof body['query'] === 'string' ? body['query'] : '',
    maxTokens,
    scoreThreshold,
    render: renderValue !== false,
    detail,
    quotas,
    purpose: (body['purpose'] as Purpose | null | undefined) || 'coding',
    dedupTurns,
    queryExpansion: (body['query_expansion'] as 'off' | 'auto' | null | undefined) || CONTEXT_DEFAULTS.queryExpansion,
    limit: CONTEXT_DEFAULTS.limit,
    peerScope: (body['peer_scope'] as PeerScope | null | undefined) || CONTEXT_DEFAULTS.peerScope,
    otherPeerPenalty: body['other_peer_penalty'] ?? null,
    rewrite: parseRewrite(body['rewrite']),
    rewriteMaxBullets: pyInt(body['rewrite_max_bullets']) || CONTEXT_DEFAULTS.rewriteMaxBullets,
    sessionId,
    excludeUris: Array.isArray(body['exclude_uris']) ? body['exclude_uris'].map(String) : [],
    aliasesUsed: V1_ALIASES.filter((alias) => has(alias)),
  };
}

/** `stats.deprecated` of a `/recall` response (docs/contract.md#deprecation-signals). */
export interface DeprecatedStats {
  endpoint: '/api/v1/search/recall';
  successor: '/api/v1/search/search';
  successor_body: { mode: 'context' };
  aliases_used: V1Alias[];
}

/** Build `stats.deprecated` (docs/contract.md#deprecation-signals) from the aliases the body used. */
export function deprecatedStats(aliasesUsed: readonly V1Alias[]): DeprecatedStats {
  return {
    endpoint: '/api/v1/search/recall',
    successor: '/api/v1/search/search',
    successor_body: { mode: 'context' },
    aliases_used: [...aliasesUsed],
  };
}

/** Response headers every `/recall` answer carries (docs/contract.md#deprecation-signals). */
export const RECALL_DEPRECATION_HEADERS = {
  Deprecation: 'true',
  Link: '</api/v1/search/search>; rel="successor-version"',
} as const;

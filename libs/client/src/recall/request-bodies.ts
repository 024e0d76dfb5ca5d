import type { ContextSearchRequestDto, RecallRequestDto } from '../generated/openapi';
import type { RecallConfig } from './recall-config';

/**
 * Coding weights the context body scales `recallLimit` by (docs/contract.md#context-request-body); order breaks ties.
 */
export const CODING_WEIGHTS: Readonly<Record<string, number>> = {
  events: 1,
  entities: 2,
  preferences: 1,
  experiences: 1,
  resources: 3,
  skills: 2,
};
/**
 * v1 bucket weights of the legacy `/recall` body (docs/contract.md#fallback-chain step 3); `experiences: 0` is added
 * after.
 */
export const V1_WEIGHTS: Readonly<Record<string, number>> = { events: 10, entities: 10, preferences: 3 };

const MAX_EXCLUDE_URIS = 200;

/**
 * Spreads `limit` slots over weighted buckets (docs/contract.md#context-request-body): below one slot per bucket every
 * bucket gets 1
 * (the sum then exceeds `limit`); otherwise each starts at 1 and the remaining slots go one at a time
 * to the bucket furthest below its ideal share `limit·w/Σw`, ties to the earlier key.
 */
export function scaleQuotas(limit: number, weights: Readonly<Record<string, number>>): Record<string, number> {
  const keys = Object.keys(weights);
  const quotas: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 1]));
  const n = Math.max(1, Math.floor(limit));
  if (n < keys.length) return quotas;
  const total = keys.reduce((s, k) => s + weights[k], 0);
  for (let left = n - keys.length; left > 0; left--) {
    let best = keys[0];
    let bestGap = -Infinity;
    for (const k of keys) {
      const gap = (n * weights[k]) / total - quotas[k];
      if (gap > bestGap) [best, bestGap] = [k, gap];
    }
    quotas[best] += 1;
  }
  return quotas;
}

export interface TurnInput {
  query: string;
  sessionId?: string | null;
  excludeUris?: readonly string[];
  /** A host-side compressor is available (decides `rewrite:"auto"`, docs/contract.md#context-request-body). */
  hasLocalCompressor?: boolean;
}

/**
 * The `mode:"context"` body (docs/contract.md#context-request-body): only what the user configured, so the server owns
 * the defaults.
 */
export function buildContextSearchBody(cfg: RecallConfig, turn: TurnInput): ContextSearchRequestDto {
  const set = (name: Parameters<RecallConfig['configured']['has']>[0]) => cfg.configured.has(name);
  const body: ContextSearchRequestDto = {
    query: turn.query,
    mode: 'context',
    purpose: 'coding',
    score_threshold: cfg.scoreThreshold,
  };
  if (set('recallLimit')) body.quotas = scaleQuotas(cfg.recallLimit, CODING_WEIGHTS);
  if (set('recallMaxTokens')) body.max_tokens = cfg.recallMaxTokens;
  if (set('recallQueryExpansion')) body.query_expansion = cfg.recallQueryExpansion;
  if (turn.sessionId) {
    body.session_id = turn.sessionId;
    if (cfg.recallDedupTurns > 0) body.dedup_turns = cfg.recallDedupTurns;
  }
  if (cfg.recallPeerScope === 'actor') body.peer_scope = 'actor';
  if (turn.excludeUris?.length) body.exclude_uris = turn.excludeUris.slice(0, MAX_EXCLUDE_URIS);
  if (cfg.recallCompress === 'server') body.rewrite = true;
  else if (cfg.recallCompress === 'auto' && !turn.hasLocalCompressor) body.rewrite = 'auto';
  if (body.rewrite !== undefined && set('recallCompressMaxBullets'))
    body.rewrite_max_bullets = cfg.recallCompressMaxBullets;
  return body;
}

/** The v1 `/recall` body of the fallback (docs/contract.md#fallback-chain step 3). */
export function buildLegacyRecallBody(cfg: RecallConfig, query: string): RecallRequestDto {
  const body: RecallRequestDto = {
    query,
    quotas: { ...scaleQuotas(cfg.recallLimit, V1_WEIGHTS), experiences: 0 },
    max_chars: Math.max(cfg.recallMaxContentChars * cfg.recallLimit, 1000),
    min_score: cfg.scoreThreshold,
    render: true,
  };
  if (cfg.recallPeerScope === 'actor') body.peer_scope = 'actor';
  return body;
}

import { CONTEXT_BOUNDS, CONTEXT_DEFAULTS, RECALL_SCORE_THRESHOLD } from '@app/kernel';
import { FieldSpec, rules } from '../http/body-schema';

const { maxTokens, dedupTurns, rewriteMaxBullets, excludeUris } = CONTEXT_BOUNDS;
const tier = rules.literal('abstract', 'overview', 'full');

/**
 * Fields only `mode="context"` accepts, and `/recall` with them (docs/contract.md#context-only-fields); `null` is
 * allowed for each (the default applies). Bounds and defaults come from the kernel's `CONTEXT_BOUNDS`/`CONTEXT_DEFAULTS`.
 */
export const CONTEXT_FIELDS = {
  query_expansion: { rule: rules.literal('off', 'auto'), nullable: true, default: CONTEXT_DEFAULTS.queryExpansion },
  max_tokens: { rule: rules.int(maxTokens.min, maxTokens.max), nullable: true, default: CONTEXT_DEFAULTS.maxTokens },
  quotas: { rule: rules.dict(rules.int(undefined, CONTEXT_BOUNDS.limit.max)), nullable: true },
  purpose: { rule: rules.literal('chat', 'coding'), nullable: true },
  detail: {
    rule: rules.union([rules.literal('auto', 'abstract', 'overview', 'full'), rules.dict(tier)]),
    nullable: true,
  },
  dedup_turns: {
    rule: rules.int(dedupTurns.min, dedupTurns.max),
    nullable: true,
    default: CONTEXT_DEFAULTS.dedupTurns,
  },
  exclude_uris: { rule: rules.list(rules.str(), excludeUris.maxItems), nullable: true },
  peer_scope: { rule: rules.literal('actor', 'all'), nullable: true, default: CONTEXT_DEFAULTS.peerScope },
  other_peer_penalty: { rule: rules.union([rules.num(), rules.dict(rules.num())]), nullable: true },
  rewrite: { rule: rules.union([rules.bool(), rules.literal('auto')]), nullable: true, default: false },
  rewrite_max_bullets: {
    rule: rules.int(rewriteMaxBullets.min, rewriteMaxBullets.max),
    nullable: true,
    default: CONTEXT_DEFAULTS.rewriteMaxBullets,
  },
  explain: { rule: rules.bool(), nullable: true, default: false },
} satisfies Record<string, FieldSpec>;

/** `/recall`'s own fields (docs/contract.md#recall-request): `query` is required; v1 aliases fold onto the rest. */
export const RECALL_FIELDS = {
  query: { rule: rules.str(), required: true },
  max_chars: { rule: rules.int(undefined, CONTEXT_BOUNDS.maxChars.max), nullable: true },
  min_score: { rule: rules.num(), nullable: true, default: RECALL_SCORE_THRESHOLD },
  render: { rule: rules.union([rules.bool(), rules.literal('full', 'compact')]), nullable: true, default: true },
} satisfies Record<string, FieldSpec>;

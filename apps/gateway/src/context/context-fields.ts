import { FieldSpec, rules } from '../http/body-schema';

const strOrList = rules.union(rules.str(), rules.list(rules.str()));
const boolOrDict = rules.union(rules.bool(), rules.dict());
const numOrDict = rules.union(rules.num(), rules.dict());
const detail = rules.union(rules.literal('auto', 'abstract', 'overview', 'full'), rules.dict());
const rewrite = rules.union(rules.bool(), rules.literal('auto'));

/** Fields `/search` shares with list mode (docs/contract.md#context-only-fields). */
export const SEARCH_SHARED_FIELDS: Record<string, FieldSpec> = {
  query: { rule: rules.str() },
  image_url: { rule: rules.str(), nullable: true },
  target_uri: { rule: strOrList },
  context_type: { rule: strOrList, nullable: true },
  session_id: { rule: rules.str(), nullable: true },
  limit: { rule: rules.int(1, 1000) },
  node_limit: { rule: rules.int(1, 1000), nullable: true },
  score_threshold: { rule: rules.num(), nullable: true },
  filter: { rule: rules.dict(), nullable: true },
  include_provenance: { rule: rules.bool() },
  tags: { rule: rules.list(rules.str()), nullable: true },
  since: { rule: rules.str(), nullable: true },
  until: { rule: rules.str(), nullable: true },
  time_field: { rule: rules.literal('updated_at', 'created_at'), nullable: true },
  level: { rule: rules.union(rules.int(), rules.str(), rules.list(rules.int())), nullable: true },
  telemetry: { rule: boolOrDict },
  mode: { rule: rules.literal('list', 'context') },
};

/**
 * Fields only `mode="context"` accepts (docs/contract.md#context-only-fields); `null` is allowed for each (defaults
 * apply).
 */
export const CONTEXT_ONLY_FIELD_SPECS: Record<string, FieldSpec> = {
  query_expansion: { rule: rules.literal('off', 'auto'), nullable: true },
  max_tokens: { rule: rules.int(64, 32000), nullable: true },
  quotas: { rule: rules.dict(), nullable: true },
  purpose: { rule: rules.literal('chat', 'coding'), nullable: true },
  detail: { rule: detail, nullable: true },
  dedup_turns: { rule: rules.int(0, 100), nullable: true },
  exclude_uris: { rule: rules.list(rules.str(), 200), nullable: true },
  peer_scope: { rule: rules.literal('actor', 'all'), nullable: true },
  other_peer_penalty: { rule: numOrDict, nullable: true },
  rewrite: { rule: rewrite, nullable: true },
  rewrite_max_bullets: { rule: rules.int(1, 20), nullable: true },
  explain: { rule: rules.bool(), nullable: true },
};

/**
 * `/recall` (docs/contract.md#recall-request): its own field set; `limit`, `filter`, `target_uri`, … are not accepted.
 */
export const RECALL_FIELDS: Record<string, FieldSpec> = {
  query: { rule: rules.str(), required: true },
  quotas: { rule: rules.dict(), nullable: true },
  max_chars: { rule: rules.int(), nullable: true },
  min_score: { rule: rules.num(), nullable: true },
  peer_scope: { rule: rules.literal('actor', 'all'), nullable: true },
  other_peer_penalty: { rule: numOrDict, nullable: true },
  render: { rule: rules.union(rules.bool(), rules.literal('full', 'compact')), nullable: true },
  telemetry: { rule: boolOrDict },
  session_id: { rule: rules.str(), nullable: true },
  query_expansion: { rule: rules.literal('off', 'auto'), nullable: true },
  max_tokens: { rule: rules.int(64, 32000), nullable: true },
  purpose: { rule: rules.literal('chat', 'coding'), nullable: true },
  detail: { rule: detail, nullable: true },
  score_threshold: { rule: rules.num(), nullable: true },
  dedup_turns: { rule: rules.int(0, 100), nullable: true },
  exclude_uris: { rule: rules.list(rules.str(), 200), nullable: true },
  rewrite: { rule: rewrite, nullable: true },
  rewrite_max_bullets: { rule: rules.int(1, 20), nullable: true },
};

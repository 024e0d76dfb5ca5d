/**
 * Test-only: the `stats` keys of docs/contract.md#stats in emission order (optional ones appear only when present),
 * written from the contract, not read from the code under test. The kernel's stats spec and the e2e suites
 * (emitted bodies, the OpenAPI schema) check against this one list.
 */
export const STATS_KEYS = [
  'searched',
  'candidates',
  'excluded',
  'origins',
  'peer_scope',
  'quotas',
  'retrieval_errors',
  'max_tokens',
  'used_tokens',
  'per_entry_cap',
  'returned',
  'dropped',
  'deduped',
  'detail',
  'tier_counts',
  'fill',
  'purpose',
  'query_expansion',
  'planned_queries',
  'score_threshold',
  'other_peer_penalties',
  'rewrite',
  'rewrite_usage',
  'dedup',
  'ignored',
  'deprecated',
  // Muninn's own keys, always last: candidates withdrawn as redundant, and weak ones (docs/context.md);
  // calls searched without the query's vector (docs/limits-and-security.md).
  'redundant',
  'weak',
  'lexical_only',
];

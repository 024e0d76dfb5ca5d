import { ApiPropertyOptions } from '@nestjs/swagger';
import { defaultContextLimit, TOKENS_PER_DEFAULT_CANDIDATE } from '@app/kernel';
import { BodyField } from '../../http/body-field.decorator';
import { FIND_FIELDS, SEARCH_FIELDS } from '../../find/dto/find-fields';
import { CONTEXT_FIELDS, RECALL_FIELDS } from '../context-fields';

// The one schema of each context body: every field is declared with its spec (../context-fields.ts,
// ../../find/dto/find-fields.ts), from which validation, defaults, OpenAPI and the MCP tool schemas derive.

const CATEGORY_KEYS = ['events', 'entities', 'preferences', 'experiences', 'resources', 'skills'];
const QUOTAS_DOC: ApiPropertyOptions = {
  description:
    `Per-bucket ceilings; keys ⊆ ${CATEGORY_KEYS.join(', ')} (unknown key → 400); integer values, negatives count as 0. ` +
    '/recall overlays the map on its v1 defaults (events 10, entities 10, preferences 3, experiences 0); `null` there means the purpose preset.',
  example: { events: 2, entities: 2, resources: 1 },
};

/** Fields `/search` context mode and `/recall` share (context-only fields). */
class ContextOptionsDto {
  @BodyField(CONTEXT_FIELDS.query_expansion, { description: 'Query expansion from the session context.' })
  query_expansion?: 'off' | 'auto' | null;

  @BodyField(CONTEXT_FIELDS.max_tokens, { description: 'Token budget of the assembled block.' })
  max_tokens?: number | null;

  @BodyField(CONTEXT_FIELDS.quotas, { api: QUOTAS_DOC })
  quotas?: Record<string, number> | null;

  @BodyField(CONTEXT_FIELDS.purpose, {
    description: 'Quota preset used when `quotas` is absent (/recall: default `coding`).',
  })
  purpose?: 'chat' | 'coding' | null;

  @BodyField(CONTEXT_FIELDS.detail, {
    description:
      'One tier for every entry, or a per-category map (keys: the six quota keys plus `memories`). `auto` = no pin.',
  })
  detail?: 'auto' | 'abstract' | 'overview' | 'full' | Record<string, 'abstract' | 'overview' | 'full'> | null;

  @BodyField(CONTEXT_FIELDS.dedup_turns, {
    description:
      'Session messages during which a served URI is not served again (needs `session_id`; /recall: 5 with a session).',
  })
  dedup_turns?: number | null;

  @BodyField(CONTEXT_FIELDS.exclude_uris, {
    description: 'URIs never to serve (`viking://~/…` expands to the caller).',
  })
  exclude_uris?: string[] | null;

  @BodyField(CONTEXT_FIELDS.peer_scope, {
    description: "`all` also scans other peers' memories (ranked with a penalty).",
  })
  peer_scope?: 'actor' | 'all' | null;

  @BodyField(CONTEXT_FIELDS.other_peer_penalty, {
    description:
      "Ranking penalty for other peers' hits: one number for every category, or a category→number map (unknown keys ignored); clamped to [0, 1].",
  })
  other_peer_penalty?: number | Record<string, number> | null;

  @BodyField(CONTEXT_FIELDS.rewrite, {
    description:
      'Digest rewrite: `true`, `false`, or `"auto"` (on when a query planner is configured). Lax booleans ("yes", "off", 0/1) are accepted.',
  })
  rewrite?: boolean | 'auto' | null;

  @BodyField(CONTEXT_FIELDS.rewrite_max_bullets)
  rewrite_max_bullets?: number | null;

  @BodyField(SEARCH_FIELDS.session_id, { description: 'Enables expansion and the cross-turn dedup ledger.' })
  session_id?: string | null;

  @BodyField(FIND_FIELDS.score_threshold, { description: 'Keep hits scoring strictly above this.' })
  score_threshold?: number | null;

  @BodyField(FIND_FIELDS.telemetry, { description: '`true` adds a `telemetry` object beside `result`.' })
  telemetry?: boolean | Record<string, unknown>;
}

/** `POST /api/v1/search/search` with `mode="context"`: one bounded, rendered context block. */
export class ContextSearchRequestDto extends ContextOptionsDto {
  @BodyField(CONTEXT_FIELDS.explain, {
    description:
      'Context mode only (Muninn): add `result.explain`, a note per candidate (served, degraded, dropped, deduped, ' +
      'redundant, weak, excluded or cooled, with scores, origin and reasons), at most 200 entries.',
  })
  explain?: boolean | null;

  @BodyField(
    { ...SEARCH_FIELDS.mode, default: undefined },
    {
      api: {
        enum: ['context'],
        required: true,
        description: 'Selects context assembly; without it every context-only field is a 400.',
      },
    },
  )
  mode!: 'context';

  @BodyField(FIND_FIELDS.query, { description: 'Required unless `image_url` is given.' })
  query?: string;

  @BodyField(FIND_FIELDS.image_url)
  image_url?: string | null;

  @BodyField(FIND_FIELDS.target_uri, {
    description: 'Not supported in context mode: any non-empty value is a 400.',
    api: { default: undefined },
  })
  target_uri?: string | string[];

  @BodyField(FIND_FIELDS.context_type, { description: '`memory`, `resource`, `skill`; folded into the filter.' })
  context_type?: string | string[] | null;

  @BodyField(FIND_FIELDS.limit, {
    description: `Candidate ceiling in flat mode (no quotas, no purpose). Unset here (and \`node_limit\` unset): one candidate per ${TOKENS_PER_DEFAULT_CANDIDATE} tokens of \`max_tokens\`, at least the contract's 10 (${defaultContextLimit(1600)} at 1600), so a block of small memories fills its budget.`,
  })
  limit?: number;

  @BodyField(FIND_FIELDS.node_limit, { description: 'Replaces `limit` when set.' })
  node_limit?: number | null;

  @BodyField(FIND_FIELDS.filter, { description: 'Metadata filter DSL.' })
  filter?: Record<string, unknown> | null;

  @BodyField(FIND_FIELDS.include_provenance, { description: 'Accepted, no effect in context mode.' })
  include_provenance?: boolean;

  @BodyField(FIND_FIELDS.tags, { description: 'Strict `key=value` tags, AND-ed.' })
  tags?: string[] | null;

  @BodyField(FIND_FIELDS.since, { description: 'Relative (`7d`) or ISO-8601 lower bound.' })
  since?: string | null;

  @BodyField(FIND_FIELDS.until)
  until?: string | null;

  @BodyField(FIND_FIELDS.time_field)
  time_field?: 'updated_at' | 'created_at' | null;

  @BodyField(FIND_FIELDS.level, { description: 'Accepted but ignored in context mode; reported in `stats.ignored`.' })
  level?: number | string | number[] | null;
}

/** `POST /api/v1/search/recall`, deprecated: v1 aliases fold onto a context request. */
export class RecallRequestDto extends ContextOptionsDto {
  @BodyField(RECALL_FIELDS.query)
  query!: string;

  @BodyField(RECALL_FIELDS.max_chars, {
    description:
      'v1 alias: `max_tokens = max(64, round_half_even(max_chars / 4))` unless `max_tokens` is given. Omitted → 1600 tokens.',
  })
  max_chars?: number | null;

  @BodyField(RECALL_FIELDS.min_score, { description: 'v1 alias of `score_threshold` (which wins); default 0.1.' })
  min_score?: number | null;

  @BodyField(RECALL_FIELDS.render, {
    description: 'v1 alias: `false` → `rendered` is ""; `"compact"` pins `detail="abstract"` unless `detail` is given.',
  })
  render?: boolean | 'full' | 'compact' | null;
}

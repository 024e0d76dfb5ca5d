import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';

// Documentation only: these classes describe the bodies for OpenAPI and generated clients. The
// pydantic-compatible validation of both bodies lives in ../context-fields.ts and ../context-request.parser.ts.

const CATEGORY_KEYS = ['events', 'entities', 'preferences', 'experiences', 'resources', 'skills'];
const TIERS = ['abstract', 'overview', 'full'];
const STRING_OR_LIST: ApiPropertyOptions['oneOf'] = [{ type: 'string' }, { type: 'array', items: { type: 'string' } }];
const QUOTAS_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  description:
    `Per-bucket ceilings; keys ⊆ ${CATEGORY_KEYS.join(', ')} (unknown key → 400); integer values, negatives count as 0. ` +
    '/recall overlays the map on its v1 defaults (events 10, entities 10, preferences 3, experiences 0); `null` there means the purpose preset.',
  additionalProperties: { type: 'integer' },
  nullable: true,
  example: { events: 2, entities: 2, resources: 1 },
};
const DETAIL_SCHEMA: ApiPropertyOptions = {
  description:
    'One tier for every entry, or a per-category map (keys: the six quota keys plus `memories`). `auto` = no pin.',
  oneOf: [
    { type: 'string', enum: ['auto', ...TIERS] },
    { type: 'object', additionalProperties: { type: 'string', enum: TIERS } },
  ],
  nullable: true,
};
const PENALTY_SCHEMA: ApiPropertyOptions = {
  description:
    "Ranking penalty for other peers' hits: one number for every category, or a category→number map (unknown keys ignored); clamped to [0, 1].",
  oneOf: [{ type: 'number' }, { type: 'object', additionalProperties: { type: 'number' } }],
  nullable: true,
};
const REWRITE_SCHEMA: ApiPropertyOptions = {
  description:
    'Digest rewrite: `true`, `false`, or `"auto"` (on when a query planner is configured). Lax booleans ("yes", "off", 0/1) are accepted.',
  oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['auto'] }],
  default: false,
  nullable: true,
};

/** Fields `/search` context mode and `/recall` share (context-only fields). */
class ContextOptionsDto {
  @ApiPropertyOptional({
    enum: ['off', 'auto'],
    default: 'auto',
    nullable: true,
    description: 'Query expansion from the session context.',
  })
  query_expansion?: 'off' | 'auto' | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 64,
    maximum: 32000,
    default: 1600,
    nullable: true,
    description: 'Token budget of the assembled block.',
  })
  max_tokens?: number | null;

  @ApiPropertyOptional(QUOTAS_SCHEMA)
  quotas?: Record<string, number> | null;

  @ApiPropertyOptional({
    enum: ['chat', 'coding'],
    nullable: true,
    description: 'Quota preset used when `quotas` is absent (/recall: default `coding`).',
  })
  purpose?: 'chat' | 'coding' | null;

  @ApiPropertyOptional(DETAIL_SCHEMA)
  detail?: 'auto' | 'abstract' | 'overview' | 'full' | Record<string, 'abstract' | 'overview' | 'full'> | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    nullable: true,
    description:
      'Session messages during which a served URI is not served again (needs `session_id`; /recall: 5 with a session).',
  })
  dedup_turns?: number | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 200,
    nullable: true,
    description: 'URIs never to serve (`viking://~/…` expands to the caller).',
  })
  exclude_uris?: string[] | null;

  @ApiPropertyOptional({
    enum: ['actor', 'all'],
    default: 'all',
    nullable: true,
    description: "`all` also scans other peers' memories (ranked with a penalty).",
  })
  peer_scope?: 'actor' | 'all' | null;

  @ApiPropertyOptional(PENALTY_SCHEMA)
  other_peer_penalty?: number | Record<string, number> | null;

  @ApiPropertyOptional(REWRITE_SCHEMA)
  rewrite?: boolean | 'auto' | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 20, default: 6, nullable: true })
  rewrite_max_bullets?: number | null;

  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    nullable: true,
    description:
      'Context mode only (Muninn): add `result.explain`, a note per candidate (served, degraded, dropped, deduped, ' +
      'redundant, excluded or cooled, with scores, origin and reasons), at most 200 entries.',
  })
  explain?: boolean | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'Enables expansion and the cross-turn dedup ledger.',
  })
  session_id?: string | null;

  @ApiPropertyOptional({ type: 'number', nullable: true, description: 'Keep hits scoring strictly above this.' })
  score_threshold?: number | null;

  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { type: 'object', additionalProperties: true }],
    default: false,
    description: '`true` adds a `telemetry` object beside `result`.',
  })
  telemetry?: boolean | Record<string, unknown>;
}

/** `POST /api/v1/search/search` with `mode="context"`: one bounded, rendered context block. */
export class ContextSearchRequestDto extends ContextOptionsDto {
  @ApiProperty({
    enum: ['context'],
    description: 'Selects context assembly; without it every context-only field is a 400.',
  })
  mode!: 'context';

  @ApiPropertyOptional({ type: 'string', default: '', description: 'Required unless `image_url` is given.' })
  query?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  image_url?: string | null;

  @ApiPropertyOptional({
    oneOf: STRING_OR_LIST,
    description: 'Not supported in context mode: any non-empty value is a 400.',
  })
  target_uri?: string | string[];

  @ApiPropertyOptional({
    oneOf: STRING_OR_LIST,
    nullable: true,
    description: '`memory`, `resource`, `skill`; folded into the filter.',
  })
  context_type?: string | string[] | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    default: 10,
    description: 'Candidate ceiling in flat mode (no quotas, no purpose).',
  })
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    nullable: true,
    description: 'Replaces `limit` when set.',
  })
  node_limit?: number | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Metadata filter DSL.',
  })
  filter?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Accepted, no effect in context mode.' })
  include_provenance?: boolean;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Strict `key=value` tags, AND-ed.' })
  tags?: string[] | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'Relative (`7d`) or ISO-8601 lower bound.' })
  since?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  until?: string | null;

  @ApiPropertyOptional({ enum: ['updated_at', 'created_at'], default: 'updated_at', nullable: true })
  time_field?: 'updated_at' | 'created_at' | null;

  @ApiPropertyOptional({
    oneOf: [{ type: 'integer' }, { type: 'string' }, { type: 'array', items: { type: 'integer' } }],
    nullable: true,
    description: 'Accepted but ignored in context mode; reported in `stats.ignored`.',
  })
  level?: number | string | number[] | null;
}

/** `POST /api/v1/search/recall`, deprecated: v1 aliases fold onto a context request. */
export class RecallRequestDto extends ContextOptionsDto {
  @ApiProperty({ type: 'string' })
  query!: string;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description:
      'v1 alias: `max_tokens = max(64, round_half_even(max_chars / 4))` unless `max_tokens` is given. Omitted → 1600 tokens.',
  })
  max_chars?: number | null;

  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    description: 'v1 alias of `score_threshold` (which wins); default 0.1.',
  })
  min_score?: number | null;

  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['full', 'compact'] }],
    default: true,
    nullable: true,
    description: 'v1 alias: `false` → `rendered` is ""; `"compact"` pins `detail="abstract"` unless `detail` is given.',
  })
  render?: boolean | 'full' | 'compact' | null;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_CORRECTED_TERMS, MAX_LISTED_CORRECTIONS } from '@app/kernel';

// Documentation only: the wire shape of a context answer. The pipeline builds it with
// the kernel (planning/assembled-entry.ts, stats/context-stats.ts); these classes describe it.

const CATEGORIES = ['events', 'entities', 'preferences', 'experiences', 'resources', 'skills', 'memories'];
const TIERS = ['full', 'overview', 'abstract', 'uri'];
const COUNT_MAP = { type: 'object', additionalProperties: { type: 'integer' } } as const;

/** One served entry, in rank order; keys in the contract's order. */
export class ContextEntryDto {
  @ApiProperty({
    description: 'Node URI; a directory hit reports the directory (sidecar suffix stripped).',
    example: 'viking://user/alice/memories/entities/ov.md',
  })
  uri!: string;

  @ApiProperty({ enum: CATEGORIES })
  category!: string;

  @ApiProperty({
    type: 'number',
    description: 'The raw retrieval score (not the peer-penalised ranking score), unrounded.',
  })
  score!: number;

  @ApiProperty({ enum: TIERS, description: 'Tier actually served.' })
  detail!: 'full' | 'overview' | 'abstract' | 'uri';

  @ApiProperty({ description: 'Body at that tier; "" at `uri`.' })
  text!: string;

  @ApiPropertyOptional({ enum: ['actor_peer', 'self', 'other_peer'] })
  origin?: 'actor_peer' | 'self' | 'other_peer';
}

export class OriginCountsDto {
  @ApiProperty({ type: 'integer' })
  actor_peer!: number;

  @ApiProperty({ type: 'integer' })
  self!: number;

  @ApiProperty({ type: 'integer' })
  other_peer!: number;
}

export class FillStatsDto {
  @ApiProperty({ type: 'integer' })
  floor_tokens!: number;

  @ApiProperty({ type: 'integer' })
  overview_upgrades!: number;

  @ApiProperty({ type: 'integer' })
  full_upgrades!: number;

  @ApiProperty({ type: 'integer' })
  spare_upgrades!: number;
}

/** `stats.other_peer_penalties`: the full seven-key map after normalisation. */
export class PenaltiesDto {
  @ApiProperty({ type: 'number' })
  events!: number;

  @ApiProperty({ type: 'number' })
  entities!: number;

  @ApiProperty({ type: 'number' })
  preferences!: number;

  @ApiProperty({ type: 'number' })
  experiences!: number;

  @ApiProperty({ type: 'number' })
  resources!: number;

  @ApiProperty({ type: 'number' })
  skills!: number;

  @ApiProperty({ type: 'number' })
  memories!: number;
}

export class RewriteUsageDto {
  @ApiProperty({ type: 'integer' })
  prompt_tokens!: number;

  @ApiProperty({ type: 'integer' })
  completion_tokens!: number;
}

export class DedupStatsDto {
  @ApiProperty({ type: 'integer' })
  turns!: number;

  @ApiProperty({ enum: ['off', 'new', 'ok', 'write_failed'] })
  status!: 'off' | 'new' | 'ok' | 'write_failed';

  @ApiProperty({ type: 'integer', description: 'URIs skipped because an earlier turn served them.' })
  cooled!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The session clock (message count) of this request.' })
  turn!: number | null;
}

export class SuccessorBodyDto {
  @ApiProperty({ enum: ['context'] })
  mode!: 'context';
}

/** `stats.deprecated` of a /recall answer. */
export class DeprecatedStatsDto {
  @ApiProperty({ enum: ['/api/v1/search/recall'] })
  endpoint!: string;

  @ApiProperty({ enum: ['/api/v1/search/search'] })
  successor!: string;

  @ApiProperty({ type: SuccessorBodyDto })
  successor_body!: SuccessorBodyDto;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['max_chars', 'min_score', 'render'] },
    description: 'v1 aliases the body used, in this fixed order.',
  })
  aliases_used!: ('max_chars' | 'min_score' | 'render')[];
}

/** `result.stats`: every key, in emission order. */
export class ContextStatsDto {
  @ApiProperty({ ...COUNT_MAP, description: 'Bucketed: distinct hits per active bucket; flat: `{"all": n}`.' })
  searched!: Record<string, number>;

  @ApiProperty({
    type: 'integer',
    description: 'Candidates handed to budgeting (after exclusion and the quota/limit cut).',
  })
  candidates!: number;

  @ApiProperty({ type: 'integer', description: 'Hits dropped because their URI is in `exclude_uris` ∪ cooled.' })
  excluded!: number;

  @ApiProperty({ type: OriginCountsDto })
  origins!: OriginCountsDto;

  @ApiProperty({ enum: ['actor', 'all'] })
  peer_scope!: 'actor' | 'all';

  @ApiProperty({
    ...COUNT_MAP,
    nullable: true,
    description: 'Resolved quota map (zero entries kept); null in flat mode.',
  })
  quotas!: Record<string, number> | null;

  @ApiPropertyOptional({
    type: [String],
    description: 'Only when some retrieval call failed: at most 5, each "<ExceptionName>: <message>" cut to 200 chars.',
  })
  retrieval_errors?: string[];

  @ApiProperty({ type: 'integer', description: 'Budget used (≥ 1).' })
  max_tokens!: number;

  @ApiProperty({ type: 'integer', description: 'Σ entry tokens + 1 per entry after the first.' })
  used_tokens!: number;

  @ApiProperty({ type: 'integer' })
  per_entry_cap!: number;

  @ApiProperty({ type: 'integer' })
  returned!: number;

  @ApiProperty({ type: 'integer', description: 'Candidates for which no tier fitted.' })
  dropped!: number;

  @ApiProperty({ type: 'integer', description: 'Candidates skipped because an earlier entry had identical text.' })
  deduped!: number;

  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['abstract', 'overview', 'full'] },
      { type: 'object', additionalProperties: { type: 'string', enum: ['abstract', 'overview', 'full'] } },
    ],
    nullable: true,
    description: 'The effective pin: the per-category map, else the scalar tier, else null.',
  })
  detail!: string | Record<string, string> | null;

  @ApiProperty({ ...COUNT_MAP, description: '`{tier: count}` over served entries (non-zero tiers only).' })
  tier_counts!: Record<string, number>;

  @ApiProperty({ type: FillStatsDto })
  fill!: FillStatsDto;

  @ApiProperty({ enum: ['chat', 'coding'], nullable: true })
  purpose!: 'chat' | 'coding' | null;

  @ApiProperty({ enum: ['off', 'used', 'failed'] })
  query_expansion!: 'off' | 'used' | 'failed';

  @ApiProperty({ type: [String], description: 'Queries actually searched, the original first.' })
  planned_queries!: string[];

  @ApiProperty({ type: 'number', nullable: true })
  score_threshold!: number | null;

  @ApiProperty({ type: PenaltiesDto })
  other_peer_penalties!: PenaltiesDto;

  @ApiProperty({ enum: ['off', 'ok', 'no_relevant', 'failed', 'timeout', 'empty'] })
  rewrite!: 'off' | 'ok' | 'no_relevant' | 'failed' | 'timeout' | 'empty';

  @ApiProperty({ type: RewriteUsageDto, nullable: true })
  rewrite_usage!: RewriteUsageDto | null;

  @ApiProperty({ type: DedupStatsDto })
  dedup!: DedupStatsDto;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: ['level', 'limit'] },
    description: '/search context only, when non-empty: inert fields that were sent.',
  })
  ignored?: ('level' | 'limit')[];

  @ApiPropertyOptional({ type: DeprecatedStatsDto, description: '/recall only.' })
  deprecated?: DeprecatedStatsDto;

  @ApiProperty({
    type: 'integer',
    description: 'Muninn, after the contract keys: entries withdrawn as their text is carried by other served entries.',
  })
  redundant!: number;

  @ApiProperty({
    type: 'integer',
    description:
      "Muninn, after `redundant`: candidates not served because their score is under 15% of the best candidate's.",
  })
  weak!: number;

  @ApiProperty({
    type: 'integer',
    description:
      "Muninn, after `weak`: retrieval calls searched without the query's vector (its embedding failed, was later than MUNINN_QUERY_EMBED_TIMEOUT_MS, or the retriever's embedding circuit was open); 0 normally.",
  })
  lexical_only!: number;
}

/** One candidate in `result.explain` (docs/context.md, "Explain"). */
export class ExplainEntryDto {
  @ApiProperty()
  uri!: string;

  @ApiProperty({ enum: CATEGORIES, nullable: true })
  category!: string | null;

  @ApiProperty({ enum: ['actor_peer', 'self', 'other_peer'], nullable: true })
  origin!: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: '1-based rank; null for hits never made candidates.' })
  rank!: number | null;

  @ApiProperty({ type: 'number', nullable: true, description: 'Raw retrieval score.' })
  score!: number | null;

  @ApiProperty({ type: 'number', nullable: true, description: 'Score used for ranking (other-peer penalty applied).' })
  ranked_score!: number | null;

  @ApiProperty()
  directory!: boolean;

  @ApiProperty({ enum: ['served', 'deduped', 'redundant', 'weak', 'dropped', 'excluded', 'cooled'] })
  outcome!: string;

  @ApiProperty({ enum: TIERS, nullable: true, description: 'Tier served (served entries only).' })
  detail!: string | null;

  @ApiProperty({ enum: TIERS, nullable: true })
  start!: string | null;

  @ApiProperty({ enum: TIERS, nullable: true })
  ceiling!: string | null;

  @ApiProperty({ type: 'integer', description: 'Estimated tokens of the served element (0 when not served).' })
  tokens!: number;

  @ApiProperty({ type: [String], description: 'Reasons, most important first; never memory text.' })
  why!: string[];
}

/** A query word the searches read as its one-edit variant (docs/context.md, "Misspelt query words"). */
export class WordCorrectionDto {
  @ApiProperty({ description: 'The query word as segmented (lower case), which no memory of the view holds.' })
  from!: string;

  @ApiProperty({ description: 'The variant searched instead: one edit away, held by the most memories of the view.' })
  to!: string;
}

export class ExplainBlockDto {
  @ApiProperty({ type: [ExplainEntryDto], maxItems: 200 })
  entries!: ExplainEntryDto[];

  @ApiProperty({ type: 'integer', description: 'Candidates beyond the 200 reported.' })
  omitted!: number;

  @ApiProperty({
    type: [WordCorrectionDto],
    maxItems: MAX_LISTED_CORRECTIONS,
    description: `Query words read as a variant, first seen first (at most ${MAX_CORRECTED_TERMS} per query, ${MAX_LISTED_CORRECTIONS} per request); [] when none.`,
  })
  corrected!: WordCorrectionDto[];
}

/** `result` of a context answer. */
export class ContextResultDto {
  @ApiProperty({ type: [ContextEntryDto] })
  entries!: ContextEntryDto[];

  @ApiProperty({
    description:
      'One `<memory …>` element per entry joined by "\\n"; "" when nothing was served, `render:false` or `no_relevant`.',
  })
  rendered!: string;

  @ApiProperty({ description: '"" unless a rewrite succeeded; then "Memory digest:\\n- …".' })
  digest!: string;

  @ApiProperty({ type: ContextStatsDto })
  stats!: ContextStatsDto;

  @ApiPropertyOptional({ type: ExplainBlockDto, description: 'Only with `explain: true`.' })
  explain?: ExplainBlockDto;
}

const STAGE_MAP = {
  type: 'object',
  additionalProperties: { type: 'number' },
  description: 'Stage name → milliseconds; a stage the request skipped is absent (docs/contract.md#success-envelope).',
} as const;

/** One awaited find or assemble job, as its worker and the gateway timed it. */
export class ContextJobStagesDto {
  @ApiProperty({ enum: ['find', 'assemble'], description: 'Queue the job ran on.' })
  queue!: string;

  @ApiProperty({ ...STAGE_MAP, example: { queue_wait: 1.8, embed: 0.3, terms: 1.5, sql: 10.5, return: 1.1 } })
  stages_ms!: Record<string, number>;
}

export class ContextTelemetrySummaryDto {
  @ApiProperty({ enum: ['search.context', 'search.recall'] })
  operation!: string;

  @ApiProperty({ type: 'number' })
  duration_ms!: number;

  @ApiProperty({ ...STAGE_MAP, example: { auth: 0.02, find: 20.2, merge: 0.08, assemble: 6.8, total: 27.2 } })
  stages_ms!: Record<string, number>;

  @ApiProperty({ type: [ContextJobStagesDto] })
  jobs!: ContextJobStagesDto[];
}

/** Sent only when the request set `telemetry`. */
export class ContextTelemetryDto {
  @ApiProperty({ description: 'Telemetry id (UUID).' })
  id!: string;

  @ApiProperty({ type: ContextTelemetrySummaryDto })
  summary!: ContextTelemetrySummaryDto;
}

/** The whole success body of a context request: `{"status":"ok","result":{…}[, "telemetry":{…}]}`. */
export class ContextEnvelopeDto {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';

  @ApiProperty({ type: ContextResultDto })
  result!: ContextResultDto;

  @ApiPropertyOptional({ type: ContextTelemetryDto })
  telemetry?: ContextTelemetryDto;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { SESSION_ID_MESSAGE, SESSION_ID_OR_EMPTY_PATTERN, SESSION_ID_PATTERN } from '@app/kernel';
import { toBoolean, toInteger } from '../../http/query-transforms';

// The kernel's one session id rule (docs/sessions.md "Session ids"): `.` and `..` are refused too.
const SESSION_ID = new RegExp(SESSION_ID_PATTERN);

/**
 * `{"events": {"tags": ["k=v", …]}}`: default tags of the session's event memories. Their bounds are
 * the request-wide `tags` bounds from config (MUNINN_TAGS_MAX_ITEMS, MUNINN_TAG_MAX_CHARS), checked
 * in the bounds pass and written into OpenAPI from the same table (docs/sessions.md "Bounds").
 */
export class EventTagsDto {
  @ApiProperty({ type: [String], nullable: true, required: false })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[] | null;
}

export class MemoryExtractionConfigDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => EventTagsDto)
  events?: EventTagsDto;
}

/** Body of POST /sessions; unknown keys are ignored (as the reference does). */
export class CreateSessionDto {
  /** Session id to use; the server generates one when omitted or empty. */
  // The pattern is written out: the OpenAPI build plugin reads only a literal from @Matches.
  @ApiPropertyOptional({ pattern: SESSION_ID_OR_EMPTY_PATTERN })
  @IsOptional()
  @IsString()
  @Matches(new RegExp(SESSION_ID_OR_EMPTY_PATTERN), { message: SESSION_ID_MESSAGE })
  session_id?: string;

  /** Automatic-commit policy (thresholds are clamped); null or absent: off. */
  @ApiPropertyOptional({ type: 'object', nullable: true, additionalProperties: true })
  @IsOptional()
  auto_commit_policy?: Record<string, unknown> | null;

  @IsOptional()
  @ValidateNested()
  @Type(() => MemoryExtractionConfigDto)
  memory_extraction_config?: MemoryExtractionConfigDto;

  /**
   * What commits of this session extract: `self`/`peer` `{enabled}`, `working_memory` `{enabled}` and
   * `memory_types` (null: all). Normalised and stored; unknown keys or types are 400.
   */
  @ApiPropertyOptional({ type: 'object', nullable: true, additionalProperties: true })
  @IsOptional()
  @IsObject()
  memory_policy?: Record<string, unknown> | null;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

export class GetSessionQueryDto {
  /** Create (materialise) the session when it does not exist. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  auto_create?: boolean;
}

export const MESSAGE_KINDS = ['user_query', 'assistant_step', 'tool_transport', 'checkpoint'] as const;

/** One message. `parts` wins over `content`; one of them is required. Unknown keys are ignored. */
export class AddMessageDto {
  /** `user`, `assistant`, `tool`, … (not restricted, as in the reference). */
  @IsDefined()
  @IsString()
  @MaxLength(64)
  role!: string;

  /** Text of a one-part message (at most MUNINN_SESSION_MESSAGE_MAX_CHARS characters). */
  @ApiProperty({ required: false, maxLength: 200_000 })
  @IsOptional()
  @IsString()
  content?: string;

  /** Structured parts (`text`, `context`, `tool`, `image_url`; at most MUNINN_SESSION_MESSAGE_MAX_PARTS). */
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, required: false, maxItems: 100 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsObject({ each: true })
  parts?: Record<string, unknown>[];

  @IsOptional()
  @IsString()
  @MaxLength(128)
  peer_id?: string;

  /** Stored and served verbatim. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  created_at?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  turn_id?: string;

  @IsOptional()
  @IsIn(MESSAGE_KINDS)
  message_kind?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  source_message_ids?: string[];

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

/** Body of POST /sessions/{id}/messages/batch: appended all or nothing. */
export class AddMessagesBatchDto {
  /** At most MUNINN_SESSION_BATCH_MAX messages (default 100). */
  @ApiProperty({ type: [AddMessageDto], maxItems: 100 })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => AddMessageDto)
  messages!: AddMessageDto[];

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

export class ExtractionMetadataDto {
  /** This commit's event tags: the same shape and bounds as the session's default event tags. */
  @IsOptional()
  @ValidateNested()
  @Type(() => EventTagsDto)
  event?: EventTagsDto;
}

/** Body of POST /sessions/{id}/commit; unknown top-level keys (such as `wait`) are ignored. */
export class CommitDto {
  /** Newest live messages kept out of the archive. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10000)
  keep_recent_count?: number;

  /** `turn_budget`: keep the newest whole turns within a token budget instead of `keep_recent_count`. */
  @ApiProperty({ nullable: true, required: false, enum: ['turn_budget'] })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  retention_mode?: string | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10000)
  keep_recent_turn_count?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  retained_message_token_budget?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10000)
  min_raw_tail_steps?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => ExtractionMetadataDto)
  extraction_metadata?: ExtractionMetadataDto;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

/** Body of PATCH /sessions/{id}/config; unknown keys are refused. */
export class PatchSessionConfigDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => MemoryExtractionConfigDto)
  memory_extraction_config?: MemoryExtractionConfigDto;

  /** Merged field by field over the current policy (or the defaults when off); null: off. */
  @ApiPropertyOptional({ type: 'object', nullable: true, additionalProperties: true })
  @IsOptional()
  auto_commit_policy?: Record<string, unknown> | null;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

export class ContextQueryDto {
  /** Token budget of the returned messages and overview (default 128000). */
  @ApiProperty({ required: false, type: Number, minimum: 0, maximum: 10_000_000 })
  @IsOptional()
  @Transform(toInteger)
  token_budget?: unknown;
}

export class SessionIdParamDto {
  @ApiProperty({ pattern: SESSION_ID_PATTERN })
  @IsDefined()
  @IsString()
  @Matches(SESSION_ID, { message: SESSION_ID_MESSAGE })
  sessionId!: string;
}

export class ArchiveParamDto extends SessionIdParamDto {
  @IsDefined()
  @IsString()
  @MaxLength(32)
  archiveId!: string;
}

export class SessionDto {
  session_id!: string;
  uri!: string;
  total_message_count!: number;
  message_count!: number;
  pending_tokens!: number;
  commit_count!: number;
  created_at!: string;
  updated_at!: string;
}

/** The skill of a `POST …/used` body: its URI and the call (input and output bounded by MUNINN_MESSAGE_MAX_CHARS). */
export class UsedSkillDto {
  @IsDefined()
  @IsString()
  uri!: string;

  @IsOptional()
  @IsString()
  input?: string;

  @IsOptional()
  @IsString()
  output?: string;

  /** Default true, as in the reference. */
  @IsOptional()
  @IsBoolean()
  success?: boolean;
}

/** Body of POST /sessions/{id}/used; unknown keys are ignored. */
export class RecordUsedDto {
  /** `viking://` URIs of the contexts the agent used (at most MUNINN_URI_LIST_MAX_ITEMS). */
  @ApiProperty({ type: [String], nullable: true, required: false })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  contexts?: string[] | null;

  @ApiProperty({ type: UsedSkillDto, nullable: true, required: false })
  @IsOptional()
  @ValidateNested()
  @Type(() => UsedSkillDto)
  skill?: UsedSkillDto | null;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

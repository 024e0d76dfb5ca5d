import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { toBoolean, toInteger } from '../../http/query-transforms';
import { SessionIdParamDto } from './sessions.dto';

/**
 * Query and path shapes of the tool-result routes (docs/sessions.md "Tool results"). Numbers are
 * checked against their configured bounds in the service (400 naming the field); the same bounds are
 * written into the OpenAPI document from the same table (`toolResultQueryBounds`). `{sessionId}` follows the
 * id rule of every session route.
 */
export class ToolResultsParamDto extends SessionIdParamDto {}

export class ToolResultParamDto extends ToolResultsParamDto {
  @IsDefined()
  @IsString()
  @MaxLength(128)
  toolResultId!: string;
}

export class ToolResultListQueryDto {
  /** Only this tool's results (exact name). */
  @ApiProperty({ required: false, type: String })
  @IsOptional()
  tool_name?: unknown;

  /** At most this many (default 50, ≥ 1, ≤ MUNINN_TOOL_RESULT_LIST_MAX). */
  @ApiProperty({ required: false, type: Number, minimum: 1 })
  @IsOptional()
  @Transform(toInteger)
  limit?: unknown;
}

export class ToolResultReadQueryDto {
  /** First code point to return (default 0). */
  @ApiProperty({ required: false, type: Number, minimum: 0 })
  @IsOptional()
  @Transform(toInteger)
  offset?: unknown;

  /** Code points to return (default 20000; -1: to the end; ≤ MUNINN_TOOL_RESULT_READ_MAX_CHARS). */
  @ApiProperty({ required: false, type: Number, minimum: -1 })
  @IsOptional()
  @Transform(toInteger)
  limit?: unknown;

  /** Add the result's record as `metadata` (default true). */
  @ApiProperty({ required: false, type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  include_metadata?: unknown;
}

export class ToolResultSearchQueryDto {
  /** Literal text to find, case-insensitive (not a pattern); required. */
  @ApiProperty({ required: true, type: String, minLength: 1 })
  @IsOptional()
  q?: unknown;

  /** At most this many matches (default 20, ≤ MUNINN_TOOL_RESULT_SEARCH_MAX_MATCHES). */
  @ApiProperty({ required: false, type: Number, minimum: 1 })
  @IsOptional()
  @Transform(toInteger)
  limit?: unknown;

  /** Code points of context on either side of a match (default 300, ≤ MUNINN_TOOL_RESULT_SEARCH_CONTEXT_MAX_CHARS). */
  @ApiProperty({ required: false, type: Number, minimum: 0 })
  @IsOptional()
  @Transform(toInteger)
  context_chars?: unknown;
}

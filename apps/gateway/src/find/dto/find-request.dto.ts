import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, ValidateIf } from 'class-validator';
import { toBoolean, toInteger } from '../../http/query-transforms';
import { IsLevel, IsStringOrStringList, IsTelemetry } from './union-validators';

const toFloat = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
const present = (field: string) => (o: Record<string, unknown>) => o[field] !== undefined;

/** `POST /api/v1/search/find`. Unknown fields are rejected. */
export class FindRequestDto {
  /** Search text; may be empty only when `image_url` is given. */
  @ValidateIf(present('query'))
  @IsString()
  query?: string;

  /** `data:image/...;base64,…`, `http(s)://…` or `viking://…`; needs an embedder with image support. */
  @IsOptional()
  @IsString()
  image_url?: string | null;

  /** Directories to search; empty, `/` and `viking://` entries are ignored; empty means the defaults. */
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], default: '' })
  @ValidateIf(present('target_uri'))
  @IsStringOrStringList()
  target_uri?: string | string[];

  /** `memory`, `resource`, `skill` (case-insensitive; comma lists allowed). */
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    nullable: true,
    example: 'memory',
  })
  @IsOptional()
  @IsStringOrStringList()
  context_type?: string | string[] | null;

  @ApiPropertyOptional({ type: 'integer', default: 10 })
  @ValidateIf(present('limit'))
  @Transform(toInteger)
  @IsInt()
  limit?: number;

  /** Overrides `limit` when set. */
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  node_limit?: number | null;

  /** Keep hits scoring strictly above this (null: 0). */
  @ApiPropertyOptional({ type: 'number', format: 'float', nullable: true })
  @IsOptional()
  @Transform(toFloat)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  score_threshold?: number | null;

  /** Metadata filter DSL: `and`/`or` over `must`, `must_not`, `prefix`, `contains`, `regex`, `range`, `range_out`, `time_range` leaves. */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { op: 'must', field: 'context_type', conds: ['memory'] },
  })
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown> | null;

  /** Adds `provenance` (searched directories, matched contexts) to the result. */
  @ValidateIf(present('include_provenance'))
  @Transform(toBoolean)
  @IsBoolean()
  include_provenance?: boolean;

  /** Strict `key=value` tags, AND-ed. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[] | null;

  /** Relative (`7d`, `12h`) or ISO-8601 / `YYYY-MM-DD` (UTC when no zone). */
  @IsOptional()
  @IsString()
  since?: string | null;

  @IsOptional()
  @IsString()
  until?: string | null;

  @ApiPropertyOptional({ enum: ['updated_at', 'created_at'], default: 'updated_at', nullable: true })
  @IsOptional()
  @IsIn(['updated_at', 'created_at'])
  time_field?: 'updated_at' | 'created_at' | null;

  /** Restrict to tiers: 0 abstract, 1 overview (directories), 2 files; an int, `"0,2"`, or a list. */
  @ApiPropertyOptional({
    oneOf: [{ type: 'integer' }, { type: 'string' }, { type: 'array', items: { type: 'integer' } }],
    nullable: true,
  })
  @IsOptional()
  @IsLevel()
  level?: number | string | (number | string)[] | null;

  /** `true` (or an options object) adds a `telemetry` summary beside `result`. */
  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'object', additionalProperties: true }], default: false })
  @ValidateIf(present('telemetry'))
  @IsTelemetry()
  telemetry?: boolean | Record<string, unknown>;
}

/** `POST /api/v1/search/search` in list mode (shared fields); answers exactly like /find. */
export class SearchListRequestDto extends FindRequestDto {
  /** Accepted for compatibility; list mode runs no session-aware expansion. */
  @IsOptional()
  @IsString()
  session_id?: string | null;

  @ApiProperty({ enum: ['list', 'context'], default: 'list', required: false })
  @ValidateIf(present('mode'))
  @IsIn(['list', 'context'])
  mode?: 'list' | 'context';
}

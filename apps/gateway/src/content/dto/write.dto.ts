import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Min,
  ValidateNested,
} from 'class-validator';

export class WriteContentDto {
  /** Target file URI (`viking://…`, `viking://~/…` expands to your user root). */
  @IsDefined()
  @IsString()
  uri!: string;

  /** The file's text (replaced, or appended to with `mode: append`): the file takes at most MUNINN_FILE_MAX_BYTES (JSON-escaped, as an export writes it), else 413. */
  @IsDefined()
  @IsString()
  content!: string;

  /** `create` makes a new file (409 if it exists); `replace`/`append` change an existing one (404 if missing). */
  @ApiProperty({ enum: ['replace', 'append', 'create'], default: 'replace' })
  @IsOptional()
  @IsIn(['replace', 'append', 'create'], { message: 'unsupported write mode: $value' })
  mode?: 'replace' | 'append' | 'create';

  /** `vectors_only` re-embeds the file but leaves its directory's summary as it is. */
  @ApiProperty({ enum: ['semantic_and_vectors', 'vectors_only'], default: 'semantic_and_vectors', required: false })
  @IsOptional()
  @IsIn(['semantic_and_vectors', 'vectors_only'])
  processing_mode?: 'semantic_and_vectors' | 'vectors_only';

  /** Wait until the node is indexed (searchable) before answering; its directory summary too, unless coalesced (`deferred`). */
  @IsOptional()
  @IsBoolean()
  wait?: boolean;

  /** Seconds to wait when `wait` is true (default: MUNINN_WRITE_WAIT_MS), at most MUNINN_WAIT_MAX_S. */
  @IsOptional()
  @IsNumber()
  @Min(0.1)
  timeout?: number;

  /** Tags as strict `key=value` strings, replacing the node's tags. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @ArrayMaxSize(64)
  tags?: string[];

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

export class BatchOperationDto {
  @IsDefined()
  @IsString()
  uri!: string;

  @IsOptional()
  @IsString()
  content?: string;

  /** Base64 content, for files that are not UTF-8 text (exactly one of content/content_base64). */
  @IsOptional()
  @IsString()
  content_base64?: string;

  @ApiProperty({ enum: ['replace', 'append', 'create', 'upsert'], default: 'replace' })
  @IsOptional()
  @IsIn(['replace', 'append', 'create', 'upsert'])
  mode?: 'replace' | 'append' | 'create' | 'upsert';
}

export class BatchWriteDto {
  /** Directory every operation must lie under. */
  @IsDefined()
  @IsString()
  root_uri!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(256)
  @ValidateNested({ each: true })
  @Type(() => BatchOperationDto)
  operations!: BatchOperationDto[];

  @IsOptional()
  @IsBoolean()
  wait?: boolean;

  @IsOptional()
  @IsNumber()
  @Min(0.1)
  timeout?: number;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { toBoolean, toInteger } from '../../http/query-transforms';

/** Query fields `ls` and `tree` share: the directory, the output form and the walk's bounds. */
class WalkQueryDto {
  @IsDefined()
  @IsString()
  @MaxLength(4096)
  uri!: string;

  @ApiProperty({ enum: ['agent', 'original'], default: 'agent', required: false })
  @IsOptional()
  @IsIn(['agent', 'original'])
  output?: 'agent' | 'original';

  /** Directory abstracts are cut to this many characters (agent output). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(100000)
  abs_limit?: number;

  /** Also list dot-files. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  show_all_hidden?: boolean;

  /** Entries at most; 0 gives an empty list (tree: capped by `MUNINN_TREE_MAX_NODES`). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(100000)
  node_limit?: number;

  /** Alias of `node_limit`; wins over it. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(100000)
  limit?: number;
}

export class LsQueryDto extends WalkQueryDto {
  /** Only URIs, as strings. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  simple?: boolean;

  /** Walk the subtree (entries carry `rel_path`). */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  recursive?: boolean;

  @ApiProperty({ enum: ['name', 'mtime'], required: false })
  @IsOptional()
  @IsIn(['name', 'mtime'])
  sort_by?: 'name' | 'mtime';

  @ApiProperty({ enum: ['asc', 'desc'], required: false })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  sort_order?: 'asc' | 'desc';
}

export class StatQueryDto {
  @IsDefined()
  @IsString()
  uri!: string;
}

export class DeleteQueryDto {
  @IsDefined()
  @IsString()
  uri!: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  recursive?: boolean;

  /** Wait until the index and parent summaries reflect the delete. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  wait?: boolean;
}

export class MkdirDto {
  @IsDefined()
  @IsString()
  uri!: string;

  /**
   * Optional description, kept with the directory: it is the directory's abstract and heads its overview, through
   * every refresh of its generated summary (children written, a move, an export and import).
   */
  @IsOptional()
  @IsString()
  description?: string;
}

export class LsEntryDto {
  uri!: string;
  size!: number;
  isDir!: boolean;
  modTime!: string;
  abstract!: string;
  rel_path?: string;
}

export class StatResultDto {
  uri!: string;
  name!: string;
  size!: number;
  mode!: number;
  modTime!: string;
  isDir!: boolean;
  isLocked!: boolean;
  count?: number;
}

export class TreeQueryDto extends WalkQueryDto {
  /** Entries whose path below `uri` has more segments are left out. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  level_limit?: number;
}

export class MvDto {
  /**
   * The file or directory to move: at most 10,000 nodes and `MUNINN_MOVE_MAX_BYTES` of content (64 MiB by
   * default) in one move; over either, 400 naming this field.
   */
  @IsDefined()
  @IsString()
  @MaxLength(4096)
  from_uri!: string;

  @IsDefined()
  @IsString()
  @MaxLength(4096)
  to_uri!: string;
}

export class SetTagsDto {
  @IsDefined()
  @IsString()
  @MaxLength(4096)
  uri!: string;

  /** Strict `key=value` tags; others are discarded, a later value for a key wins. */
  @IsDefined()
  @IsArray()
  @IsString({ each: true })
  @ArrayMaxSize(64)
  @MaxLength(256, { each: true })
  tags!: string[];

  @ApiProperty({ enum: ['replace', 'append'], default: 'replace', required: false })
  @IsOptional()
  @IsIn(['replace', 'append'], { message: 'unsupported tag mode' })
  mode?: 'replace' | 'append';

  /** Also tag every node below a directory. */
  @IsOptional()
  @IsBoolean()
  recursive?: boolean;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

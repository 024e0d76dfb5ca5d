import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  Min,
} from 'class-validator';

export class ReindexDto {
  /**
   * File or directory to re-index (a directory with its whole subtree unless recursive=false): at most
   * MUNINN_REINDEX_MAX_NODES (100,000) files and directories, else 400 naming `uri`.
   */
  @IsDefined()
  @IsString()
  uri!: string;

  /** Muninn always recomputes abstracts, sidecars and vectors with the current embedder. */
  @ApiProperty({ enum: ['vectors_only', 'semantic_and_vectors'], default: 'vectors_only', required: false })
  @IsOptional()
  @IsIn(['vectors_only', 'semantic_and_vectors'])
  mode?: 'vectors_only' | 'semantic_and_vectors';

  /** Wait until every node is re-indexed. */
  @IsOptional()
  @IsBoolean()
  wait?: boolean;

  @IsOptional()
  @IsBoolean()
  recursive?: boolean;

  /** Seconds to wait when `wait` is true, at most MUNINN_WAIT_MAX_S. */
  @IsOptional()
  @IsNumber()
  @Min(0.1)
  timeout?: number;

  /** Only `prune_orphans` supports a dry run, and Muninn has no orphans to prune: true is refused. */
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;

  /** Strict `k=v` retrieval tags set on the target (and its subtree unless recursive=false) first. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @ArrayMaxSize(64)
  @MaxLength(256, { each: true })
  tags?: string[] | null;

  @ApiProperty({ enum: ['replace', 'append'], default: 'replace', required: false })
  @IsOptional()
  @IsString()
  tag_mode?: string;
}

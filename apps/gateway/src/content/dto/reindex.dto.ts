import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';

export class ReindexDto {
  /** File or directory to re-index (a directory with its whole subtree unless recursive=false). */
  @IsDefined() @IsString()
  uri!: string;

  /** Muninn always recomputes abstracts, sidecars and vectors with the current embedder. */
  @ApiProperty({ enum: ['vectors_only', 'semantic_and_vectors'], default: 'vectors_only', required: false })
  @IsOptional() @IsIn(['vectors_only', 'semantic_and_vectors'])
  mode?: 'vectors_only' | 'semantic_and_vectors';

  /** Wait until every node is re-indexed. */
  @IsOptional() @IsBoolean()
  wait?: boolean;

  @IsOptional() @IsBoolean()
  recursive?: boolean;

  /** Seconds to wait when `wait` is true. */
  @IsOptional() @IsNumber() @Min(0.1) @Max(3600)
  timeout?: number;
}

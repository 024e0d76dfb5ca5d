import { IsBoolean, IsDefined, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class GrepRequestDto {
  /** Directory to search below, or one file. */
  @IsDefined()
  @IsString()
  @MaxLength(4096)
  uri!: string;

  /** Regular expression matched per line, in the safe subset (docs/limits-and-security.md#regex-filters). */
  @IsDefined()
  @IsString()
  pattern!: string;

  @IsOptional()
  @IsBoolean()
  case_insensitive?: boolean;

  /** Matching lines at most; null or 0 means the server bound (`MUNINN_SCAN_MAX_RESULTS`). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100000)
  node_limit?: number | null;

  /** Files whose path below `uri` has more segments are not searched. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(64)
  level_limit?: number;

  /** A URI whose subtree is skipped. */
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  exclude_uri?: string | null;
}

export class GlobRequestDto {
  /** Glob against the path below `uri`: `*` stays in one segment, `**` crosses them. */
  @IsDefined()
  @IsString()
  pattern!: string;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  uri?: string;

  /** Matches at most; null or ≤0 means the server bound (`MUNINN_SCAN_MAX_RESULTS`). */
  @IsOptional()
  @IsInt()
  @Max(100000)
  node_limit?: number | null;
}

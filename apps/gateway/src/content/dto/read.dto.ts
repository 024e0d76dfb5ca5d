import { Transform } from 'class-transformer';
import { IsBoolean, IsDefined, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { toBoolean, toInteger } from '../../http/query-transforms';

export class UriQueryDto {
  @IsDefined()
  @IsString()
  uri!: string;
}

export class ReadQueryDto extends UriQueryDto {
  /** First line to return (0-based). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  offset?: number;

  /** Number of lines; -1 reads to the end. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(-1)
  limit?: number;

  /** Return memory files with their MEMORY_FIELDS trailer. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  raw?: boolean;
}

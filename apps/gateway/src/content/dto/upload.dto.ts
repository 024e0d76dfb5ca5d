import { IsOptional, IsString, MaxLength } from 'class-validator';

export class UploadQueryDto {
  /** The one-shot token of an upload link minted by the MCP `add_resource` tool. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  token?: string;
}

import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { toBoolean } from '../../http/query-transforms';

const SESSION_ID = /^[a-zA-Z0-9_.@-]{1,128}$/;

export class CreateSessionDto {
  /** Session id to use; the server generates one when omitted. */
  @IsOptional() @IsString() @Matches(SESSION_ID, { message: 'session_id must match ^[a-zA-Z0-9_.@-]{1,128}$' })
  session_id?: string;

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

export class GetSessionQueryDto {
  /** Create (materialise) the session when it does not exist. */
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  auto_create?: boolean;
}

export class AddMessageDto {
  /** `user`, `assistant`, `tool`, … (not restricted, as in the reference). */
  @IsDefined() @IsString() @MaxLength(64)
  role!: string;

  @IsOptional() @IsString()
  content?: string;

  /** Structured parts (`{"type":"text","text":…}`, context, tool, image_url); wins over `content`. */
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, required: false })
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @IsObject({ each: true })
  parts?: Record<string, unknown>[];

  @IsOptional() @IsString()
  peer_id?: string;

  @IsOptional() @IsString()
  created_at?: string;

  @IsOptional() @IsString()
  turn_id?: string;

  @IsOptional() @IsString()
  message_kind?: string;

  @IsOptional() @IsArray()
  source_message_ids?: string[];

  @IsOptional()
  telemetry?: boolean | Record<string, unknown>;
}

export class SessionIdParamDto {
  @IsDefined() @IsString() @Matches(SESSION_ID, { message: 'session_id must match ^[a-zA-Z0-9_.@-]{1,128}$' })
  sessionId!: string;
}

export class SessionDto {
  session_id!: string;
  uri!: string;
  total_message_count!: number;
  message_count!: number;
  created_at!: string;
  updated_at!: string;
}

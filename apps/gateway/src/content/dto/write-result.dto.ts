import { ApiProperty } from '@nestjs/swagger';

export class WriteResultDto {
  uri!: string;
  /** Directory the write is reported under (memory-type directory for memories). */
  root_uri!: string;
  @ApiProperty({ enum: ['memory', 'resource', 'skill'] })
  context_type!: string;
  @ApiProperty({ enum: ['replace', 'append', 'create'] })
  mode!: string;
  /** UTF-8 bytes of the request's content. */
  written_bytes!: number;
  content_updated!: boolean;
  @ApiProperty({ enum: ['queued', 'complete', 'failed'] })
  semantic_status!: string;
  @ApiProperty({ enum: ['queued', 'complete', 'failed'] })
  vector_status!: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  queue_status!: Record<string, unknown> | null;
  /** Whether the file did not exist before. */
  created!: boolean;
}

export class BatchWriteResultDto {
  root_uri!: string;
  created!: string[];
  updated!: string[];
  unchanged!: string[];
  @ApiProperty({ enum: ['queued', 'complete', 'failed'] })
  semantic_status!: string;
  @ApiProperty({ enum: ['queued', 'complete', 'failed'] })
  vector_status!: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  queue_status!: Record<string, unknown> | null;
}

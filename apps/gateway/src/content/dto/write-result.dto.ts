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
  /** False when the stored content (and tags) already matched: nothing written, nothing re-indexed. */
  content_updated!: boolean;
  /** The directory summary: `deferred` when a busy directory's refresh was coalesced into one moments later. */
  @ApiProperty({ enum: ['queued', 'complete', 'deferred', 'failed', 'skipped'] })
  semantic_status!: string;
  /** The node's own index (embedding and lexical text); `skipped` when nothing changed. */
  @ApiProperty({ enum: ['queued', 'complete', 'failed', 'skipped'] })
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
  /** Operations whose content equalled what is stored: not written, not re-indexed. */
  unchanged!: string[];
  @ApiProperty({ enum: ['queued', 'complete', 'deferred', 'failed', 'skipped'] })
  semantic_status!: string;
  @ApiProperty({ enum: ['queued', 'complete', 'failed', 'skipped'] })
  vector_status!: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  queue_status!: Record<string, unknown> | null;
}

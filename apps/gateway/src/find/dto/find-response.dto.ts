import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_CORRECTED_TERMS } from '@app/kernel';

/** One hit; directory tiers carry the sidecar suffix (`…/dir/.abstract.md`, `…/dir/.overview.md`). */
export class FindHitDto {
  @ApiProperty({ enum: ['memory', 'resource', 'skill'] })
  context_type!: 'memory' | 'resource' | 'skill';

  @ApiProperty({ example: 'viking://user/alice/memories/preferences/coffee.md' })
  uri!: string;

  /** 0 directory abstract, 1 directory overview, 2 file. */
  @ApiProperty({ type: 'integer', enum: [0, 1, 2] })
  level!: number;

  /** Hybrid relevance in 0..1: 0.6 × lexical coverage (IDF-weighted) + 0.4 × max(0, cosine). */
  @ApiProperty({ type: 'number', format: 'float', minimum: 0, maximum: 1 })
  score!: number;

  /** The file's abstract (a memory's whole stripped body), or the sidecar body for directory tiers. */
  abstract!: string;

  @ApiProperty({ type: [String] })
  tags!: string[];
}

export class FindProvenanceDto {
  @ApiProperty({ type: [String] })
  searched_directories!: string[];

  @ApiProperty({ type: [String] })
  matched_contexts!: string[];
}

/** `result` of /find and of /search in list mode: one list per context type, each sorted by score. */
export class FindResultDto {
  @ApiProperty({ type: [FindHitDto] })
  memories!: FindHitDto[];

  @ApiProperty({ type: [FindHitDto] })
  resources!: FindHitDto[];

  @ApiProperty({ type: [FindHitDto] })
  skills!: FindHitDto[];

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiPropertyOptional({ type: FindProvenanceDto })
  provenance?: FindProvenanceDto;
}

export class TelemetryDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "`operation` and `duration_ms`; Muninn adds `lexical_only`: true when the search went without its query's vector (its embedding failed, was later than MUNINN_QUERY_EMBED_TIMEOUT_MS, or the retriever's embedding circuit was open), and `corrected`: the query words no memory holds that were read as their one-edit variant, `[{from, to}]` " +
      `(at most ${MAX_CORRECTED_TERMS}).`,
    example: {
      operation: 'search.find',
      duration_ms: 12,
      lexical_only: false,
      corrected: [{ from: 'paymnet', to: 'payment' }],
    },
  })
  summary!: Record<string, unknown>;
}

/** The whole success body: `{"status":"ok","result":{…}[, "telemetry":{…}]}`. */
export class FindEnvelopeDto {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';

  @ApiProperty({ type: FindResultDto })
  result!: FindResultDto;

  @ApiPropertyOptional({ type: TelemetryDto })
  telemetry?: TelemetryDto;
}

import { BodyField } from '../../http/body-field.decorator';
import { FIND_FIELDS, SEARCH_FIELDS } from './find-fields';

// The one schema of each body: every field is declared with its spec (./find-fields.ts), from which
// validation, defaults, OpenAPI and the MCP tool schemas derive. Unknown fields are rejected.

/** `POST /api/v1/search/find`. */
export class FindRequestDto {
  @BodyField(FIND_FIELDS.query, { description: 'Search text; may be empty only when `image_url` is given.' })
  query?: string;

  @BodyField(FIND_FIELDS.image_url, {
    description: 'Not supported: no configured embedder reads images, so any non-null value is a 400.',
  })
  image_url?: string | null;

  @BodyField(FIND_FIELDS.target_uri, {
    description: 'Directories to search; empty, `/` and `viking://` entries are ignored; empty means the defaults.',
  })
  target_uri?: string | string[];

  @BodyField(FIND_FIELDS.context_type, {
    description: '`memory`, `resource`, `skill` (case-insensitive; comma lists allowed).',
    api: { example: 'memory' },
  })
  context_type?: string | string[] | null;

  @BodyField(FIND_FIELDS.limit, { description: 'Hits per answer.' })
  limit?: number;

  @BodyField(FIND_FIELDS.node_limit, { description: 'Overrides `limit` when set.' })
  node_limit?: number | null;

  @BodyField(FIND_FIELDS.score_threshold, {
    description: 'Keep hits scoring strictly above this (null: 0).',
    api: { format: 'float' },
  })
  score_threshold?: number | null;

  @BodyField(FIND_FIELDS.filter, {
    description:
      'Metadata filter DSL: `and`/`or` over `must`, `must_not`, `prefix`, `contains`, `regex`, `range`, `range_out`, `time_range` leaves.',
    api: { example: { op: 'must', field: 'context_type', conds: ['memory'] } },
  })
  filter?: Record<string, unknown> | null;

  @BodyField(FIND_FIELDS.include_provenance, {
    description: 'Adds `provenance` (searched directories, matched contexts) to the result.',
  })
  include_provenance?: boolean;

  @BodyField(FIND_FIELDS.tags, { description: 'Strict `key=value` tags, AND-ed.' })
  tags?: string[] | null;

  @BodyField(FIND_FIELDS.since, {
    description: 'Relative (`7d`, `12h`) or ISO-8601 / `YYYY-MM-DD` (UTC when no zone).',
  })
  since?: string | null;

  @BodyField(FIND_FIELDS.until)
  until?: string | null;

  @BodyField(FIND_FIELDS.time_field)
  time_field?: 'updated_at' | 'created_at' | null;

  @BodyField(FIND_FIELDS.level, {
    description: 'Restrict to tiers: 0 abstract, 1 overview (directories), 2 files; an int, `"0,2"`, or a list.',
  })
  level?: number | string | (number | string)[] | null;

  @BodyField(FIND_FIELDS.telemetry, {
    description: '`true` (or an options object) adds a `telemetry` summary beside `result`.',
  })
  telemetry?: boolean | Record<string, unknown>;
}

/** `POST /api/v1/search/search` in list mode (shared fields); answers exactly like /find. */
export class SearchListRequestDto extends FindRequestDto {
  @BodyField(SEARCH_FIELDS.session_id, {
    description: 'Accepted for compatibility; list mode runs no session-aware expansion.',
  })
  session_id?: string | null;

  @BodyField(SEARCH_FIELDS.mode)
  mode?: 'list' | 'context';
}

import { CONTEXT_BOUNDS, CONTEXT_DEFAULTS, SESSION_ID_OR_EMPTY_PATTERN } from '@app/kernel';
import { FieldSpec, rules } from '../../http/body-schema';

const strOrList = rules.union(
  [rules.str(), rules.list(rules.str())],
  'Input should be a valid string or a list of strings',
);
const limit = rules.int(CONTEXT_BOUNDS.limit.min, CONTEXT_BOUNDS.limit.max);

/**
 * The fields `/find`, `/search` list mode and `/search` context mode share (docs/contract.md#find-request): one
 * spec each, so both modes accept and refuse the same values. The DTO classes declare them with `@BodyField`.
 */
export const FIND_FIELDS = {
  query: { rule: rules.str(), default: '' },
  // No configured embedder reads images (docs/contract.md#differences): the key stays in the schema, and any
  // value but null is a 400 naming it, before a search would run.
  image_url: {
    rule: rules.unsupported('string', 'Not supported: no configured embedder reads images; send a text query'),
    nullable: true,
  },
  target_uri: { rule: strOrList, default: '' },
  context_type: { rule: strOrList, nullable: true },
  limit: { rule: limit, default: CONTEXT_DEFAULTS.limit },
  node_limit: { rule: limit, nullable: true },
  score_threshold: { rule: rules.num(), nullable: true },
  filter: { rule: rules.dict(), nullable: true },
  include_provenance: { rule: rules.bool(), default: false },
  tags: { rule: rules.list(rules.str()), nullable: true },
  since: { rule: rules.str(), nullable: true },
  until: { rule: rules.str(), nullable: true },
  time_field: { rule: rules.literal('updated_at', 'created_at'), nullable: true, default: 'updated_at' },
  level: {
    rule: rules.union(
      [rules.int(), rules.str(), rules.list(rules.int())],
      'Input should be a valid integer, a string such as "0,2", or a list of integers',
    ),
    nullable: true,
  },
  telemetry: {
    rule: rules.union([rules.bool(), rules.dict()], 'Input should be a valid boolean or a dictionary'),
    default: false,
  },
} satisfies Record<string, FieldSpec>;

/**
 * `/search` only: the session (context mode) and the mode switch. `session_id` follows the session routes'
 * rule (docs/sessions.md "Session ids"; `""` means none): context mode materialises the session it names, and
 * one the routes could not address could never be read or deleted. /recall and the MCP tools share the field.
 */
export const SEARCH_FIELDS = {
  session_id: { rule: rules.pattern(SESSION_ID_OR_EMPTY_PATTERN), nullable: true },
  mode: { rule: rules.literal('list', 'context'), default: 'list' },
} satisfies Record<string, FieldSpec>;

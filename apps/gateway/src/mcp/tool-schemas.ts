import { z } from 'zod';

// Input schemas of the MCP tools (contract §12). Every node has one explicit JSON type: no unions,
// no nullables, no $ref (some MCP clients reject anyOf). Bounds are left to the REST validation the
// tools call, so a bad value gets the same message as over HTTP; defaults are documented through
// `.meta({ default })` and never filled in, because a field the caller omitted must stay omitted.

const TIER = ['abstract', 'overview', 'full'] as const;
const int = () => z.number().int();

export const FIND_TOOL_SHAPE = {
  query: z.string().describe('What to look for.'),
  target_uri: z.string().optional().describe('Directory to search (default: the caller\'s memories, resources and skills).'),
  limit: int().optional().meta({ default: 10 }).describe('Maximum hits.'),
  min_score: z.number().optional().meta({ default: 0.35 }).describe('Keep hits scoring strictly above this.'),
  level: z.array(int()).optional().describe('Restrict to tiers: 0 directory abstract, 1 directory overview, 2 files.'),
  context_type: z.string().optional().describe('`memory`, `resource` or `skill` (comma lists allowed).'),
};

export const SEARCH_TOOL_SHAPE = {
  query: z.string().describe('The question or topic; in context mode the original query of the turn.'),
  mode: z.enum(['list', 'context']).optional().meta({ default: 'list' }).describe(
    '`list`: ranked hits like `find`. `context`: one bounded, deduplicated context block ready to use (entries, rendered, digest).',
  ),
  target_uri: z.string().optional().describe('List mode only (a 400 in context mode).'),
  limit: int().optional().meta({ default: 10 }).describe('List: maximum hits. Context: candidate ceiling in flat mode (no quotas, no purpose).'),
  min_score: z.number().optional().describe('Keep hits scoring strictly above this. Default: 0.35 in list mode, no threshold in context mode.'),
  context_type: z.string().optional().describe('`memory`, `resource` or `skill` (comma lists allowed).'),
  session_id: z.string().optional().describe('Context mode: enables query expansion from the session and the cross-turn dedup ledger.'),
  query_expansion: z.enum(['off', 'auto']).optional().meta({ default: 'auto' }).describe('Context mode: expand the query from the session context.'),
  max_tokens: int().optional().meta({ default: 1600 }).describe('Context mode: token budget of the block (64–32000).'),
  quotas: z.record(z.string(), int()).optional().describe(
    'Context mode: per-bucket ceilings, keys among events, entities, preferences, experiences, resources, skills.',
  ),
  purpose: z.enum(['chat', 'coding']).optional().describe('Context mode: quota preset used when `quotas` is absent.'),
  detail: z.enum(['auto', ...TIER]).optional().meta({ default: 'auto' }).describe('Context mode: pin one tier for every entry; `auto` lets the budget decide.'),
  detail_by_category: z.record(z.string(), z.enum(TIER)).optional().describe(
    'Context mode: per-category tier pins (keys: the quota keys plus `memories`); cannot be combined with a `detail` other than `auto`.',
  ),
  dedup_turns: int().optional().meta({ default: 0 }).describe('Context mode: session messages during which a served URI is not served again (0–100).'),
  exclude_uris: z.array(z.string()).optional().describe('Context mode: URIs never to serve (at most 200).'),
  peer_scope: z.enum(['actor', 'all']).optional().meta({ default: 'all' }).describe('Context mode: `all` also ranks other peers\' memories, with a penalty.'),
  other_peer_penalty: z.number().optional().describe('Context mode: one ranking penalty in [0, 1] for every category of other peers\' hits.'),
  other_peer_penalties: z.record(z.string(), z.number()).optional().describe('Context mode: per-category penalties; cannot be combined with `other_peer_penalty`.'),
  rewrite: z.enum(['off', 'auto']).optional().meta({ default: 'off' }).describe('Context mode: `auto` asks the server for a cited digest of the block.'),
  rewrite_max_bullets: int().optional().meta({ default: 6 }).describe('Context mode: digest bullets at most (1–20).'),
};

export const READ_TOOL_SHAPE = {
  uri: z.string().describe('Any `viking://` URI a search entry or hit carries (file or directory).'),
  level: z.enum(TIER).optional().meta({ default: 'full' }).describe(
    '`abstract` (one paragraph), `overview` (outline or summary), `full` (the whole body; a directory gives its overview).',
  ),
};

/** The legacy tool of §12 "at #3534": `POST /recall` semantics, defaults resolved by the route. */
export const RECALL_TOOL_SHAPE = {
  query: z.string().describe('The question or topic of the turn.'),
  quotas: z.record(z.string(), int()).optional().describe('Per-bucket ceilings overlaid on events 10, entities 10, preferences 3, experiences 0.'),
  max_chars: z.number().optional().describe('v1 budget in characters (max_tokens = max_chars / 4); default 1600 tokens.'),
  min_score: z.number().optional().meta({ default: 0.1 }).describe('Keep hits scoring strictly above this.'),
  peer_scope: z.string().optional().meta({ default: 'all' }).describe('`actor` restricts to the actor peer; anything else means `all`.'),
  other_peer_penalty: z.number().optional().describe('Ranking penalty in [0, 1] for other peers\' hits.'),
  session_id: z.string().optional().describe('Enables expansion and cross-turn dedup (5 messages by default).'),
  detail: z.string().optional().describe('`abstract`, `overview` or `full` pins every entry; other values mean automatic.'),
  max_tokens: int().optional().meta({ default: 1600 }).describe('Token budget (64–32000); wins over max_chars.'),
  rewrite: z.boolean().optional().meta({ default: false }).describe('Ask the server for a cited digest.'),
};

type ArgsOf<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

export type FindToolArgs = ArgsOf<typeof FIND_TOOL_SHAPE>;
export type SearchToolArgs = ArgsOf<typeof SEARCH_TOOL_SHAPE>;
export type ReadToolArgs = ArgsOf<typeof READ_TOOL_SHAPE>;
export type RecallToolArgs = ArgsOf<typeof RECALL_TOOL_SHAPE>;

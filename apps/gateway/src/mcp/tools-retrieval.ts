import { canonicalizeUri, KernelError, KernelErrorCode } from '@app/kernel';
import { DomainExceptionFilter } from '../http/domain-exception.filter';
import { wantsContext } from '../context/context-request.parser';
import type { SearchEnvelope } from '../context/context-search.service';
import type { Identity } from '@app/kernel';
import type { McpTool, ToolDeps, ToolOutput } from './mcp-tool';
import { findToolBody, recallToolBody, searchToolBody } from './tool-bodies';
import type { FindToolArgs, RecallToolArgs, SearchToolArgs } from './tool-bodies';
import { contextText, listText, NO_CONTEXT_TEXT, NO_RECALL_TEXT } from './tool-text';

// find, search, read and the legacy recall (docs/fs-and-mcp.md, "MCP tools").

const TIERS = ['auto', 'abstract', 'overview', 'full'] as const;
const CONTEXT_TYPES = 'Restrict to `memory`, `resource` or `skill`.';
/** Reads a batch `read` runs at once. */
const READ_CONCURRENCY = 10;
const errors = new DomainExceptionFilter();

const listAnswer = (e: SearchEnvelope): ToolOutput => {
  const result = e.result as Record<string, unknown>;
  return { text: listText(result), structured: result };
};
const contextAnswer = (e: SearchEnvelope, fallback: string): ToolOutput => {
  const result = e.result as Record<string, unknown>;
  return { text: contextText(result, fallback), structured: result };
};

export const FIND_TOOL: McpTool = {
  name: 'find',
  description: 'Fast stateless retrieval: ranked memories, resources and skills with URI, abstract and score.',
  props: {
    query: { type: 'string', description: 'What to look for.' },
    target_uri: {
      type: 'string',
      default: '',
      description: 'Directory to search (default: your memories, resources and skills).',
    },
    limit: { type: 'integer', default: 10, description: 'Maximum hits.' },
    min_score: { type: 'number', default: 0.35, description: 'Keep hits scoring strictly above this.' },
    level: { type: 'array', of: 'integer', description: 'Tiers: 0 directory abstract, 1 directory overview, 2 files.' },
    context_type: { type: 'array', of: 'string', description: CONTEXT_TYPES },
  },
  required: ['query'],
  run: async (caller, args, d) => {
    const body = findToolBody(args as unknown as FindToolArgs);
    return listAnswer(await d.finder.find(caller, body));
  },
};

export const SEARCH_TOOL: McpTool = {
  name: 'search',
  description:
    'Search memories, resources and skills. mode="list" returns ranked hits; mode="context" returns one bounded, ' +
    'deduplicated context block ready to use (digest, else rendered <memory> elements). Use read to expand a URI.',
  props: {
    query: { type: 'string', description: 'The question or topic; in context mode the original query of the turn.' },
    target_uri: { type: 'string', default: '', description: 'List mode only (an error in context mode).' },
    session_id: {
      type: 'string',
      description: 'Context mode: query expansion from the session and the cross-turn dedup ledger.',
    },
    limit: {
      type: 'integer',
      default: 10,
      description: 'List: maximum hits. Context: candidate ceiling without quotas.',
    },
    min_score: {
      type: 'number',
      description: 'Keep hits scoring above this. Default 0.35 in list mode, none in context mode.',
    },
    level: { type: 'array', of: 'integer', description: 'List mode: restrict to tiers 0, 1, 2.' },
    context_type: { type: 'array', of: 'string', description: CONTEXT_TYPES },
    mode: {
      type: 'string',
      enum: ['list', 'context'],
      default: 'list',
      description: '`list`: ranked hits. `context`: one bounded block.',
    },
    query_expansion: {
      type: 'string',
      enum: ['off', 'auto'],
      default: 'auto',
      description: 'Context mode: expand from the session.',
    },
    max_tokens: { type: 'integer', default: 1600, description: 'Context mode: token budget (64–32000).' },
    quotas: {
      type: 'object',
      of: 'integer',
      description: 'Context mode: per-bucket ceilings (events, entities, preferences, …).',
    },
    purpose: {
      type: 'string',
      enum: ['chat', 'coding'],
      description: 'Context mode: quota preset when `quotas` is absent.',
    },
    detail: {
      type: 'string',
      enum: TIERS,
      default: 'auto',
      description: 'Context mode: pin one tier for every entry.',
    },
    detail_by_category: { type: 'object', of: 'string', description: 'Context mode: per-category tier pins.' },
    dedup_turns: {
      type: 'integer',
      default: 0,
      description: 'Context mode: messages during which a served URI is not served again.',
    },
    exclude_uris: { type: 'array', of: 'string', description: 'Context mode: URIs never to serve (at most 200).' },
    peer_scope: {
      type: 'string',
      enum: ['actor', 'all'],
      default: 'all',
      description: 'Context mode: `all` also ranks other peers.',
    },
    other_peer_penalty: { type: 'number', description: 'Context mode: one ranking penalty in [0, 1] for other peers.' },
    other_peer_penalties: { type: 'object', of: 'number', description: 'Context mode: per-category penalties.' },
    rewrite: {
      type: 'string',
      enum: ['off', 'auto'],
      default: 'off',
      description: 'Context mode: `auto` asks for a cited digest.',
    },
    rewrite_max_bullets: { type: 'integer', default: 6, description: 'Context mode: digest bullets at most (1–20).' },
  },
  required: ['query'],
  run: async (caller, args, d) => {
    const body = searchToolBody(args as unknown as SearchToolArgs);
    if (!wantsContext(body)) return listAnswer(await d.finder.list(caller, body));
    return contextAnswer(await d.context.search(caller, body), NO_CONTEXT_TEXT);
  },
};

export const RECALL_TOOL: McpTool = {
  name: 'recall',
  description: 'Deprecated (use search with mode="context"): recall memories for the current turn with the v1 preset.',
  props: {
    query: { type: 'string', description: 'The question or topic of the turn.' },
    quotas: {
      type: 'object',
      of: 'integer',
      description: 'Per-bucket ceilings overlaid on events 10, entities 10, preferences 3.',
    },
    max_chars: { type: 'number', description: 'v1 budget in characters (max_tokens = max_chars / 4).' },
    min_score: { type: 'number', default: 0.1, description: 'Keep hits scoring strictly above this.' },
    peer_scope: {
      type: 'string',
      default: 'all',
      description: '`actor` restricts to the actor peer; anything else means `all`.',
    },
    other_peer_penalty: { type: 'number', description: "Ranking penalty in [0, 1] for other peers' hits." },
    session_id: { type: 'string', description: 'Enables expansion and cross-turn dedup.' },
    detail: {
      type: 'string',
      description: '`abstract`, `overview` or `full` pins every entry; other values mean automatic.',
    },
    max_tokens: { type: 'integer', default: 1600, description: 'Token budget (64–32000); wins over max_chars.' },
    rewrite: { type: 'boolean', default: false, description: 'Ask the server for a cited digest.' },
  },
  required: ['query'],
  run: async (caller, args, d) => {
    const body = recallToolBody(args as unknown as RecallToolArgs);
    return contextAnswer(await d.context.recall(caller, body), NO_RECALL_TEXT);
  },
};

export const READ_TOOL: McpTool = {
  name: 'read',
  description:
    'Read one or more viking:// file URIs (a list, or one string). Several URIs answer in `=== <uri> ===` sections. ' +
    'A directory answers with a hint to list it first.',
  props: {
    uris: { type: 'array', of: 'string', description: 'File URIs to read (at most MUNINN_MCP_READ_MAX_URIS).' },
    level: {
      type: 'string',
      enum: ['abstract', 'overview', 'full'],
      description: 'Muninn extension: read at this tier (a directory then answers too).',
    },
  },
  required: ['uris'],
  run: async (caller, args, d) => {
    const uris = args['uris'] as string[];
    const max = d.config.fs.readMaxUris;
    if (uris.length > max) {
      const message = `uris: List should have at most ${max} items`;
      throw new KernelError(KernelErrorCode.InvalidArgument, message, { field: 'uris', limit: max });
    }
    const level = args['level'] as 'abstract' | 'overview' | 'full' | undefined;
    const texts = await mapLimited(uris, READ_CONCURRENCY, (uri) => readOne(caller, uri, level, d));
    if (texts.length === 1) return texts[0]!;
    return texts.map((t, i) => `=== ${uris[i]} ===\n${t}`).join('\n\n');
  },
};

/** One URI of a batch read: storage failures come back as text, so one bad URI never fails the batch. */
async function readOne(caller: Identity, raw: string, level: string | undefined, d: ToolDeps): Promise<string> {
  try {
    const answer = await d.reader.read(caller, raw, (level ?? 'full') as 'full');
    if (answer.kind === 'directory' && !level) {
      return `Directory URI is not readable as a file: ${answer.uri}. List it first, then read a file URI.`;
    }
    return answer.text;
  } catch (err) {
    const code = err instanceof KernelError ? err.code : null;
    if (code === KernelErrorCode.NotFound) return `File not found: ${safeCanonical(raw, caller.userId)}`;
    if (code === KernelErrorCode.PermissionDenied) return `Access denied for ${safeCanonical(raw, caller.userId)}`;
    const { body } = errors.render(err);
    return (body as { error?: { message?: string } }).error?.message ?? 'Internal server error';
  }
}

function safeCanonical(raw: string, userId: string): string {
  try {
    return canonicalizeUri(raw, userId);
  } catch {
    return raw;
  }
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export { mapLimited };

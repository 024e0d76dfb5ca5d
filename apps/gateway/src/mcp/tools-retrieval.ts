import { canonicalizeUri, isContextRequest, KernelError, KernelErrorCode } from '@app/kernel';
import { DomainExceptionFilter } from '../http/domain-exception.filter';
import type { SearchEnvelope } from '../context/context-search.service';
import type { Identity } from '@app/kernel';
import type { McpTool, ToolDeps, ToolOutput } from './mcp-tool';
import { findToolBody, LIST_MIN_SCORE, recallToolBody, searchToolBody } from './tool-bodies';
import { fromField } from './tool-schema';
import { CONTEXT_FIELDS, RECALL_FIELDS } from '../context/context-fields';
import { FIND_FIELDS, SEARCH_FIELDS } from '../find/dto/find-fields';
import type { FindToolArgs, RecallToolArgs, SearchToolArgs } from './tool-bodies';
import { contextText, listText, NO_CONTEXT_TEXT, NO_RECALL_TEXT } from './tool-text';

// find, search, read and the legacy recall (docs/fs-and-mcp.md, "MCP tools").

const CONTEXT_TYPES = 'Restrict to `memory`, `resource` or `skill`.';
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
  readOnly: true,
  description: 'Fast stateless retrieval: ranked memories, resources and skills with URI, abstract and score.',
  props: {
    query: fromField(FIND_FIELDS.query, { description: 'What to look for.', default: undefined }),
    target_uri: fromField(FIND_FIELDS.target_uri, {
      type: 'string',
      description: 'Directory to search (default: your memories, resources and skills).',
    }),
    limit: fromField(FIND_FIELDS.limit, { description: 'Maximum hits.' }),
    // The tool's own argument (sent as score_threshold), with the reference tool's default.
    min_score: fromField(FIND_FIELDS.score_threshold, {
      default: LIST_MIN_SCORE,
      description: 'Keep hits scoring strictly above this.',
    }),
    level: fromField(FIND_FIELDS.level, {
      type: 'array',
      description: 'Tiers: 0 directory abstract, 1 directory overview, 2 files.',
    }),
    context_type: fromField(FIND_FIELDS.context_type, { type: 'array', description: CONTEXT_TYPES }),
  },
  required: ['query'],
  run: async (caller, args, d) => {
    const body = findToolBody(args as unknown as FindToolArgs);
    return listAnswer(await d.finder.find(caller, body));
  },
};

export const SEARCH_TOOL: McpTool = {
  name: 'search',
  readOnly: true,
  description:
    'Search memories, resources and skills. mode="list" returns ranked hits; mode="context" returns one bounded, ' +
    'deduplicated context block ready to use (digest, else rendered <memory> elements). Use read to expand a URI.',
  props: {
    query: fromField(FIND_FIELDS.query, {
      description: 'The question or topic; in context mode the original query of the turn.',
      default: undefined,
    }),
    target_uri: fromField(FIND_FIELDS.target_uri, {
      type: 'string',
      description: 'List mode only (an error in context mode).',
    }),
    session_id: fromField(SEARCH_FIELDS.session_id, {
      description: 'Context mode: query expansion from the session and the cross-turn dedup ledger.',
    }),
    limit: fromField(FIND_FIELDS.limit, {
      description: 'List: maximum hits. Context: candidate ceiling without quotas.',
    }),
    min_score: fromField(FIND_FIELDS.score_threshold, {
      description: 'Keep hits scoring above this. Default 0.35 in list mode, none in context mode.',
    }),
    level: fromField(FIND_FIELDS.level, { type: 'array', description: 'List mode: restrict to tiers 0, 1, 2.' }),
    context_type: fromField(FIND_FIELDS.context_type, { type: 'array', description: CONTEXT_TYPES }),
    mode: fromField(SEARCH_FIELDS.mode, { description: '`list`: ranked hits. `context`: one bounded block.' }),
    query_expansion: fromField(CONTEXT_FIELDS.query_expansion, {
      description: 'Context mode: expand from the session.',
    }),
    max_tokens: fromField(CONTEXT_FIELDS.max_tokens, { description: 'Context mode: token budget.' }),
    quotas: fromField(CONTEXT_FIELDS.quotas, {
      description: 'Context mode: per-bucket ceilings (events, entities, preferences, …).',
    }),
    purpose: fromField(CONTEXT_FIELDS.purpose, { description: 'Context mode: quota preset when `quotas` is absent.' }),
    // `detail` and `detail_by_category` are the tool's typed spellings of the route's union field.
    detail: fromField(CONTEXT_FIELDS.detail, {
      type: 'string',
      default: 'auto',
      description: 'Context mode: pin one tier for every entry.',
    }),
    detail_by_category: fromField(CONTEXT_FIELDS.detail, {
      type: 'object',
      description: 'Context mode: per-category tier pins.',
    }),
    dedup_turns: fromField(CONTEXT_FIELDS.dedup_turns, {
      description: 'Context mode: messages during which a served URI is not served again.',
    }),
    exclude_uris: fromField(CONTEXT_FIELDS.exclude_uris, { description: 'Context mode: URIs never to serve.' }),
    peer_scope: fromField(CONTEXT_FIELDS.peer_scope, { description: 'Context mode: `all` also ranks other peers.' }),
    other_peer_penalty: fromField(CONTEXT_FIELDS.other_peer_penalty, {
      type: 'number',
      description: 'Context mode: one ranking penalty in [0, 1] for other peers.',
    }),
    other_peer_penalties: fromField(CONTEXT_FIELDS.other_peer_penalty, {
      type: 'object',
      description: 'Context mode: per-category penalties.',
    }),
    // The tool's own spelling of `rewrite` (`auto` is sent as `true`).
    rewrite: {
      type: 'string',
      enum: ['off', 'auto'],
      default: 'off',
      description: 'Context mode: `auto` asks for a cited digest.',
    },
    rewrite_max_bullets: fromField(CONTEXT_FIELDS.rewrite_max_bullets, {
      description: 'Context mode: digest bullets at most.',
    }),
  },
  required: ['query'],
  run: async (caller, args, d) => {
    const body = searchToolBody(args as unknown as SearchToolArgs);
    if (!isContextRequest(body)) return listAnswer(await d.finder.list(caller, body));
    return contextAnswer(await d.context.search(caller, body), NO_CONTEXT_TEXT);
  },
};

export const RECALL_TOOL: McpTool = {
  name: 'recall',
  readOnly: true,
  description: 'Deprecated (use search with mode="context"): recall memories for the current turn with the v1 preset.',
  props: {
    query: fromField(RECALL_FIELDS.query, { description: 'The question or topic of the turn.' }),
    quotas: fromField(CONTEXT_FIELDS.quotas, {
      description: 'Per-bucket ceilings overlaid on events 10, entities 10, preferences 3.',
    }),
    // The tool truncates a fractional budget before sending it (recallToolBody), so it takes a number.
    max_chars: fromField(RECALL_FIELDS.max_chars, {
      type: 'number',
      description: 'v1 budget in characters (max_tokens = max_chars / 4).',
    }),
    min_score: fromField(RECALL_FIELDS.min_score, { description: 'Keep hits scoring strictly above this.' }),
    // Lax on purpose (docs/contract.md#mcp-tools): anything but "actor" means "all".
    peer_scope: {
      type: 'string',
      default: CONTEXT_FIELDS.peer_scope.default,
      description: '`actor` restricts to the actor peer; anything else means `all`.',
    },
    other_peer_penalty: fromField(CONTEXT_FIELDS.other_peer_penalty, {
      type: 'number',
      description: "Ranking penalty in [0, 1] for other peers' hits.",
    }),
    session_id: fromField(SEARCH_FIELDS.session_id, { description: 'Enables expansion and cross-turn dedup.' }),
    // Lax on purpose: an unknown tier degrades to automatic instead of a 400.
    detail: {
      type: 'string',
      description: '`abstract`, `overview` or `full` pins every entry; other values mean automatic.',
    },
    max_tokens: fromField(CONTEXT_FIELDS.max_tokens, { description: 'Token budget; wins over max_chars.' }),
    rewrite: fromField(CONTEXT_FIELDS.rewrite, { type: 'boolean', description: 'Ask the server for a cited digest.' }),
  },
  required: ['query'],
  run: async (caller, args, d) => {
    const body = recallToolBody(args as unknown as RecallToolArgs);
    return contextAnswer(await d.context.recall(caller, body), NO_RECALL_TEXT);
  },
};

export const READ_TOOL: McpTool = {
  name: 'read',
  readOnly: true,
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
    const texts = await readWithin(uris, d.config.limits.mcpReadMaxChars, (uri, room) =>
      readOne(caller, uri, level, d, room),
    );
    if (texts.length === 1) return texts[0]!;
    return texts.map((t, i) => `=== ${uris[i]} ===\n${t}`).join('\n\n');
  },
};

/**
 * The URIs' texts in order within `maxChars` over all of them (docs/fs-and-mcp.md#limits): each distinct
 * URI is read and answered once, from the store only up to the room left, and a text that meets the bound is cut
 * with a note naming it. Fifty 9.5 MB files (or one repeated fifty times) made one call answer 199 MB
 * and a batch of sixteen 3.2 GB, with 6 GB of server memory.
 */
async function readWithin(
  uris: string[],
  maxChars: number,
  read: (uri: string, room: number) => Promise<string>,
): Promise<string[]> {
  const note = `[cut: this answer reached MUNINN_MCP_READ_MAX_CHARS (${maxChars} characters); read fewer URIs, or GET /api/v1/content/read one file]`;
  const answered = new Set<string>();
  const out: string[] = [];
  let used = 0;
  for (const uri of uris) {
    // A URI given again answers once: repeating one file fifty times was the cheapest way to a huge answer.
    if (answered.has(uri)) {
      out.push('[the same URI as above]');
      continue;
    }
    answered.add(uri);
    const room = maxChars - used;
    if (room <= 0) {
      out.push(note);
      continue;
    }
    // One character more than the room tells a text that fits from one that had to be cut.
    const text = await read(uri, room + 1);
    out.push(text.length > room ? `${text.slice(0, room)}\n${note}` : text);
    used += Math.min(text.length, room);
  }
  return out;
}

/** One URI of a batch read: storage failures come back as text, so one bad URI never fails the batch. */
async function readOne(
  caller: Identity,
  raw: string,
  level: string | undefined,
  d: ToolDeps,
  maxChars: number,
): Promise<string> {
  try {
    const answer = await d.reader.read(caller, raw, (level ?? 'full') as 'full', maxChars);
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

import { canonicalizeUri, invalidArgument, KernelError, KernelErrorCode, stripMemoryFields } from '@app/kernel';
import type { Identity } from '@app/kernel';
import type { McpTool, ToolDeps } from './mcp-tool';
import { mapLimited } from './tools-retrieval';
import { globText, grepText, GrepLine, indexingText, treeText } from './tool-text';

// list, tree, write, edit, forget, grep and glob (docs/fs-and-mcp.md, "MCP tools").

/** Depth of a recursive `list`. */
const LIST_DEPTH = 3;
const LIST_LIMIT = 1000;
/** Patterns of one `grep` call, and how many run at once. */
const GREP_MAX_PATTERNS = 10;
const GREP_CONCURRENCY = 10;
const URI_MAX = 4096;

export const LIST_TOOL: McpTool = {
  name: 'list',
  readOnly: true,
  description: 'List a viking:// directory: `[dir] name` / `[file] name`; recursive=true prints URIs (3 levels deep).',
  props: {
    uri: { type: 'string', maxLength: URI_MAX, description: 'Directory URI, e.g. viking://~/memories.' },
    recursive: { type: 'boolean', default: false, description: 'Walk up to 3 levels below, one URI per line.' },
  },
  required: ['uri'],
  run: async (caller, args, d) => {
    const uri = args['uri'] as string;
    const recursive = (args['recursive'] as boolean | undefined) ?? false;
    const entries = (await d.fs.ls(caller, { uri, output: 'original', recursive, node_limit: LIST_LIMIT })) as {
      name: string;
      isDir: boolean;
      uri: string;
      rel_path?: string;
    }[];
    const shown = recursive ? entries.filter((e) => (e.rel_path ?? '').split('/').length <= LIST_DEPTH) : entries;
    if (shown.length === 0) return `(no entries under ${uri})`;
    return shown.map((e) => `[${e.isDir ? 'dir' : 'file'}] ${recursive ? e.uri : e.name}`).join('\n');
  },
};

export const TREE_TOOL: McpTool = {
  name: 'tree',
  readOnly: true,
  description: 'Indented tree below a viking:// directory: directories end with `/`, files show their size.',
  props: {
    uri: { type: 'string', default: 'viking://', maxLength: URI_MAX, description: 'Directory URI.' },
    level_limit: { type: 'integer', default: 3, description: 'Depth below the URI (1–64).' },
    node_limit: { type: 'integer', default: 1000, description: 'Entries at most (capped by MUNINN_TREE_MAX_NODES).' },
    include_abstract: { type: 'boolean', default: false, description: "Add each file's abstract under it." },
  },
  run: async (caller, args, d) => {
    const uri = (args['uri'] as string | undefined) ?? 'viking://';
    const levelLimit = (args['level_limit'] as number | undefined) ?? 3;
    const nodeLimit = (args['node_limit'] as number | undefined) ?? 1000;
    if (levelLimit < 1 || levelLimit > 64) throw invalid('level_limit must be between 1 and 64', 'level_limit');
    if (nodeLimit < 1) throw invalid('node_limit must be at least 1', 'node_limit');
    let walk;
    try {
      walk = await d.fs.walk(caller, { uri, level_limit: levelLimit, node_limit: nodeLimit });
    } catch (err) {
      if (err instanceof KernelError && err.code === KernelErrorCode.NotFound) return `(nothing under ${uri})`;
      throw err;
    }
    if (walk.entries.length === 0) return `(nothing under ${uri})`;
    const lines = walk.entries.map((e) => ({
      rel: e.rel,
      depth: e.depth,
      kind: e.kind,
      size: e.size,
      abstract: e.abstract,
    }));
    const withAbstracts = (args['include_abstract'] as boolean | undefined) ?? false;
    return treeText(walk.uri, levelLimit, walk.nodeLimit, lines, withAbstracts);
  },
};

export const WRITE_TOOL: McpTool = {
  name: 'write',
  description:
    'Write a text file: mode=replace (default; creates a missing file), append, or create (fails if it exists). ' +
    'Memory files keep their metadata. Indexing follows; wait=true waits for it.',
  props: {
    uri: {
      type: 'string',
      maxLength: URI_MAX,
      description: 'File URI, e.g. viking://~/memories/preferences/editor.md.',
    },
    content: { type: 'string', description: 'Text to write.' },
    mode: { type: 'string', enum: ['replace', 'append', 'create'], default: 'replace', description: 'How to write.' },
    wait: { type: 'boolean', default: false, description: 'Wait until the change is searchable.' },
    timeout: { type: 'number', minimum: 0.1, description: 'Seconds to wait when wait=true.' },
  },
  required: ['uri', 'content'],
  run: async (caller, args, d) => {
    const mode = (args['mode'] as 'replace' | 'append' | 'create' | undefined) ?? 'replace';
    const dto = { uri: args['uri'] as string, content: args['content'] as string, mode, ...waitOf(args) };
    let result;
    try {
      result = await d.content.write(caller, dto);
    } catch (err) {
      // The tool's replace creates a missing file (the REST route answers 404 instead).
      if (!(mode === 'replace' && err instanceof KernelError && err.code === KernelErrorCode.NotFound)) throw err;
      result = await d.content.write(caller, { ...dto, mode: 'create' });
    }
    return wroteText(result);
  },
  resumed: wroteText,
};

/** The write and edit tools' report of the write route's answer (`written_bytes`, `uri`, `mode`, the statuses). */
function wroteText(result: Record<string, unknown>): string {
  const { written_bytes: bytes, uri, mode } = result;
  return `Wrote ${String(bytes)} bytes to ${String(uri)} (mode=${String(mode)}).\n${indexingText(result)}`;
}

function editedText(result: Record<string, unknown>): string {
  return `Edited ${String(result['uri'])} (${String(result['written_bytes'])} bytes written).\n${indexingText(result)}`;
}

export const EDIT_TOOL: McpTool = {
  name: 'edit',
  description: 'Replace an exact string in a text file (unique unless replace_all). Re-read the file first.',
  props: {
    uri: { type: 'string', maxLength: URI_MAX, description: 'File URI.' },
    old_string: { type: 'string', description: 'Exact text to replace (must occur once unless replace_all).' },
    new_string: { type: 'string', description: 'Replacement text.' },
    replace_all: { type: 'boolean', default: false, description: 'Replace every occurrence.' },
    wait: { type: 'boolean', default: false, description: 'Wait until the change is searchable.' },
    timeout: { type: 'number', minimum: 0.1, description: 'Seconds to wait when wait=true.' },
  },
  required: ['uri', 'old_string', 'new_string'],
  run: async (caller, args, d) => edit(caller, args, d),
  resumed: editedText,
};

async function edit(caller: Identity, args: Record<string, unknown>, d: ToolDeps): Promise<string> {
  const oldString = args['old_string'] as string;
  const newString = args['new_string'] as string;
  if (oldString === '') throw invalid('old_string must not be empty', 'old_string');
  const uri = canonicalizeUri(args['uri'] as string, caller.userId);
  const raw = await d.content.read(caller, { uri, raw: true });
  // Only a memory file's trailer is hidden; any other file is edited byte for byte.
  const hasTrailer = raw.includes('MEMORY_FIELDS');
  const visible = hasTrailer ? stripMemoryFields(raw) : raw;
  const count = visible.split(oldString).length - 1;
  if (count === 0) {
    const message = `old_string not found in ${uri}. Re-read the file with the read tool to get its current content.`;
    throw new KernelError(KernelErrorCode.NotFound, message);
  }
  if (count > 1 && !args['replace_all']) {
    throw new KernelError(
      KernelErrorCode.InvalidArgument,
      `old_string matches ${count} locations in ${uri}. ` +
        'Include more surrounding context to make it unique, or set replace_all=true.',
    );
  }
  // An edit writes no more than a write's body could carry (MUNINN_BODY_LIMIT_BYTES), unless it does not grow the
  // file: `replace_all` of one character by a long string multiplied a small call into a file of any size. The
  // length is known before the string is built (characters, each at least a byte).
  const limit = d.config.http.bodyLimitBytes;
  // In bytes: one character for one can triple a file (`a` → `ࠀ`).
  const grows = Buffer.byteLength(newString) > Buffer.byteLength(oldString);
  if (grows && visible.length + count * (newString.length - oldString.length) > limit) throw editTooLarge(limit);
  const edited = args['replace_all']
    ? visible.split(oldString).join(newString)
    : visible.replace(oldString, () => newString);
  if (grows && Buffer.byteLength(edited) > limit) throw editTooLarge(limit);
  if (edited === visible) return `No changes: ${uri} already matches the requested edit.`;
  // A memory file keeps its MEMORY_FIELDS trailer: only the visible body is replaced.
  const trailer = hasTrailer ? raw.slice(raw.lastIndexOf('<!--')) : '';
  const content = trailer ? `${edited}\n${trailer}` : edited;
  const result = await d.content.write(caller, { uri, content, mode: 'replace', ...waitOf(args) });
  return editedText(result);
}

function editTooLarge(limit: number): KernelError {
  return new KernelError(
    KernelErrorCode.PayloadTooLarge,
    `The edited file would be over ${limit} bytes (MUNINN_BODY_LIMIT_BYTES), the most a write may carry`,
    { field: 'new_string', limit_bytes: limit },
  );
}

export const FORGET_TOOL: McpTool = {
  name: 'forget',
  description:
    'Delete a viking:// file, or a directory with recursive=true. Needs the exact URI; confirm with the user first.',
  props: {
    uri: { type: 'string', maxLength: URI_MAX, description: 'Exact URI to delete.' },
    recursive: { type: 'boolean', default: false, description: 'Delete a directory and everything in it.' },
  },
  required: ['uri'],
  run: async (caller, args, d) => {
    const recursive = (args['recursive'] as boolean | undefined) ?? false;
    const result = await d.fs.remove(caller, args['uri'] as string, recursive, false);
    return `Deleted: ${result.uri}`;
  },
};

export const GREP_TOOL: McpTool = {
  name: 'grep',
  readOnly: true,
  description: 'Find lines matching regular expressions (one or several patterns) in the files below a viking:// URI.',
  props: {
    uri: { type: 'string', maxLength: URI_MAX, description: 'Directory (or file) to search.' },
    pattern: {
      type: 'array',
      of: 'string',
      maxItems: GREP_MAX_PATTERNS,
      description: 'Regex or list of regexes (safe subset).',
    },
    case_insensitive: { type: 'boolean', default: false, description: 'Ignore case.' },
    node_limit: { type: 'integer', default: 10, description: 'Matching lines per pattern at most.' },
  },
  required: ['uri', 'pattern'],
  run: async (caller, args, d) => {
    const patterns = args['pattern'] as string[];
    // Each pattern is its own scan, so each one past the first counts as one more request against the
    // caller's rate limit, as each further message of a JSON-RPC batch does (docs/fs-and-mcp.md, "MCP tools").
    if (patterns.length > 1) await d.charge(caller, patterns.length - 1);
    const perPattern = await mapLimited(patterns, GREP_CONCURRENCY, async (pattern): Promise<GrepLine[]> => {
      try {
        const r = await d.scans.grep(caller, {
          uri: args['uri'] as string,
          pattern,
          case_insensitive: args['case_insensitive'] as boolean | undefined,
          node_limit: (args['node_limit'] as number | undefined) ?? 10,
        });
        return r.matches.map((m) => ({ ...m, pattern }));
      } catch {
        return []; // a failing pattern counts as no matches, as in the reference
      }
    });
    return grepText(patterns, perPattern.flat());
  },
};

export const GLOB_TOOL: McpTool = {
  name: 'glob',
  readOnly: true,
  description: 'Find viking:// URIs whose path below `uri` matches a glob (`*` within a segment, `**` across).',
  props: {
    pattern: { type: 'string', maxLength: URI_MAX, description: 'Glob, e.g. **/*.md.' },
    uri: { type: 'string', default: 'viking://', maxLength: URI_MAX, description: 'Where to start.' },
    node_limit: { type: 'integer', default: 100, description: 'Matches at most.' },
  },
  required: ['pattern'],
  run: async (caller, args, d) => {
    const pattern = args['pattern'] as string;
    try {
      const uri = args['uri'] as string | undefined;
      const nodeLimit = (args['node_limit'] as number | undefined) ?? 100;
      const r = await d.scans.glob(caller, { pattern, uri, node_limit: nodeLimit });
      return globText(pattern, r.matches);
    } catch (err) {
      return `Error: ${err instanceof Error ? err.message : String(err)}`;
    }
  },
};

function invalid(message: string, field: string): KernelError {
  return new KernelError(KernelErrorCode.InvalidArgument, message, { field });
}

/** `wait` and `timeout` as the write route takes them. */
function waitOf(args: Record<string, unknown>): { wait?: boolean; timeout?: number } {
  const timeout = args['timeout'] as number | undefined;
  // The route's own minimum (its DTO's); the gate holds the maximum, MUNINN_WAIT_MAX_S, by the argument's name.
  if (timeout !== undefined && timeout < 0.1) {
    throw invalidArgument('timeout: Input should be greater than or equal to 0.1', { field: 'timeout' });
  }
  return { wait: args['wait'] as boolean | undefined, timeout };
}

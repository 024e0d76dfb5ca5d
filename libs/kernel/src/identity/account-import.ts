import { canonicalizeUri } from '../uri/viking-uri';
import { UriShapeBounds, uriShapeIssue } from '../uri/uri-shape';
import { ImportToolResultLine, ImportUsageLine, readToolResultLine, readUsageLine } from './import-session-extras';
import { checkText, Fields, importProblem, USER_ID } from './import-fields';
import { ImportSessionLine, readSessionLine } from './import-session';

export { importProblem } from './import-fields';
export type { ImportSessionLine, ImportSessionSettings } from './import-session';

/**
 * Reading an account export back in (docs/limits-and-security.md, "Importing an account"): each line is
 * checked on its own (`readImportLine`) and against the lines before it (`ImportOrder`), so a refusal
 * names the line and the field before anything of that line is written. Pure: the gateway streams the
 * body and the store writes what these functions accepted.
 */

/** The export format this server reads (the export's first line names its format). */
export const IMPORT_FORMAT = 1;

const ROLES = ['admin', 'user'] as const;
const ARCHIVE_STATUSES = ['pending', 'done', 'failed'] as const;

export interface ImportAccountLine {
  type: 'account';
  users: { user_id: string; role: (typeof ROLES)[number] }[];
  limits: Record<string, unknown>;
}
export interface ImportNodeLine {
  type: 'node';
  uri: string;
  kind: 'file' | 'directory';
  tags: string[];
  created_at: string;
  updated_at: string;
  /** The file's body; absent for a directory (its summary is derived again on import). */
  content?: string;
  /** A directory's description (`mkdir`), which heads its summary; absent without one. */
  description?: string;
}
export interface ImportArchiveLine {
  type: 'archive';
  user_id: string;
  session_id: string;
  archive_index: number;
  status: (typeof ARCHIVE_STATUSES)[number];
  created_at: string;
  abstract: string;
  overview: string;
  messages: unknown[];
}
export interface ImportMessageLine {
  type: 'message';
  user_id: string;
  session_id: string;
  seq: number;
  message_id: string;
  role: string;
  content: string;
  parts: unknown[] | null;
  /** Peer, turn and kind of the message as it was appended (`{}` in an export that has none). */
  extra: Record<string, unknown>;
  created_at: string;
}
export interface ImportEndLine {
  type: 'end';
  nodes: number;
  sessions: number;
  archives: number;
  messages: number;
  /** Absent in an export written before these lines were (its sessions carry none). */
  tool_results?: number;
  usage?: number;
}
export type ImportLine =
  | ImportAccountLine
  | ImportNodeLine
  | ImportSessionLine
  | ImportArchiveLine
  | ImportMessageLine
  | ImportToolResultLine
  | ImportUsageLine
  | ImportEndLine;

/** What the import's bounds allow a line to hold (configuration, docs/limits-and-security.md). */
export interface ImportLineBounds {
  maxUsers: number;
  maxTags: number;
  maxTagChars: number;
  /** Nesting levels a line may have (MUNINN_BODY_MAX_DEPTH, as for a JSON body). */
  maxDepth: number;
  /** A node's URI, as the request gate bounds a URI in a body (the gate does not parse an import's). */
  uri: UriShapeBounds;
  /** A directory's description, as `mkdir` bounds it (MUNINN_DESCRIPTION_MAX_CHARS). */
  maxDescriptionChars: number;
}

/** The line's fields checked and narrowed to what the import writes; a refusal names the field. */
export function readImportLine(value: unknown, line: number, bounds: ImportLineBounds): ImportLine {
  checkText(value, line, bounds.maxDepth);
  const r = new Fields(value, line);
  const type = r.oneOf('type', [
    'account',
    'node',
    'session',
    'archive',
    'message',
    'tool_result',
    'usage',
    'end',
  ] as const);
  switch (type) {
    case 'account': {
      if (r.int('format', 0) !== IMPORT_FORMAT)
        throw importProblem(
          line,
          `format must be ${IMPORT_FORMAT} (this server reads export format ${IMPORT_FORMAT})`,
          'format',
        );
      const users = r.array('users', bounds.maxUsers).map((u, i) => {
        const f = new Fields(u, line, `users[${i}].`);
        return { user_id: f.match('user_id', USER_ID), role: f.oneOf('role', ROLES) };
      });
      return { type, users, limits: r.object('limits') };
    }
    case 'node': {
      const uri = r.string('uri');
      const shape = uriShapeIssue(uri, bounds.uri);
      if (shape) throw importProblem(line, `uri: ${shape.message}`, 'uri');
      if (uri === 'viking://' || safeCanonical(uri) !== uri)
        throw importProblem(line, `uri is not a canonical viking:// URI: ${uri.slice(0, 200)}`, 'uri');
      const kind = r.oneOf('kind', ['file', 'directory'] as const);
      const node: ImportNodeLine = {
        type,
        uri,
        kind,
        tags: r.strings('tags', bounds.maxTags, bounds.maxTagChars),
        created_at: r.date('created_at'),
        updated_at: r.date('updated_at'),
      };
      if (kind === 'file') node.content = r.string('content');
      else if (r.has('content')) throw importProblem(line, 'a directory has no content', 'content');
      if (r.has('description')) {
        if (kind === 'file') throw importProblem(line, 'a file has no description', 'description');
        node.description = r.stringUpTo('description', bounds.maxDescriptionChars);
      }
      return node;
    }
    case 'session':
      return readSessionLine(r, line, bounds);
    case 'archive':
      return {
        type,
        user_id: r.match('user_id', USER_ID),
        session_id: r.sessionId(),
        archive_index: r.int('archive_index', 0),
        status: r.oneOf('status', ARCHIVE_STATUSES),
        created_at: r.date('created_at'),
        abstract: r.string('abstract'),
        overview: r.string('overview'),
        messages: r.array('messages', Number.MAX_SAFE_INTEGER).map((m, i) => {
          // An archived message as a commit stored it: the readers of archives rely on this shape.
          const f = new Fields(m, line, `messages[${i}].`);
          f.string('id');
          f.string('role');
          f.string('created_at');
          f.parts('parts');
          return m;
        }),
      };
    case 'message':
      return {
        type,
        user_id: r.match('user_id', USER_ID),
        session_id: r.sessionId(),
        seq: r.int('seq', 1),
        message_id: r.match('message_id', /^\S{1,128}$/),
        role: r.match('role', /^.{1,64}$/su),
        content: r.string('content'),
        parts: r.has('parts') && r.raw('parts') !== null ? r.parts('parts') : null,
        extra: r.has('extra') ? r.object('extra') : {},
        created_at: r.date('created_at'),
      };
    case 'tool_result':
      return readToolResultLine(r);
    case 'usage':
      return readUsageLine(r, line, bounds.uri);
    case 'end':
      return {
        type,
        nodes: r.int('nodes', 0),
        sessions: r.int('sessions', 0),
        archives: r.int('archives', 0),
        messages: r.int('messages', 0),
        ...(r.has('tool_results') ? { tool_results: r.int('tool_results', 0) } : {}),
        ...(r.has('usage') ? { usage: r.int('usage', 0) } : {}),
      };
  }
}

/**
 * The order an export writes its lines in, as far as the import relies on it: the account first; then
 * the nodes; then each session followed by its archives (by index) and then its live messages (by seq),
 * all of users the account line lists; the `end` line last, with the counts of what came before it.
 * Nodes and sessions need no order among themselves: the export lists them in the database's collation,
 * which another deployment may not share. A node or session listed twice is refused when it is written.
 */
export class ImportOrder {
  private readonly users = new Set<string>();
  private readonly counts = { nodes: 0, sessions: 0, archives: 0, messages: 0, tool_results: 0, usage: 0 };
  private session: { user_id: string; session_id: string } | null = null;
  private lastArchive = -1;
  private lastSeq = 0;
  private stage: 'start' | 'nodes' | 'sessions' | 'ended' = 'start';

  accept(l: ImportLine, line: number): void {
    if (this.stage === 'ended') throw importProblem(line, 'nothing may follow the end line');
    if (this.stage === 'start') {
      if (l.type !== 'account') throw importProblem(line, 'an export starts with its account line', 'type');
      for (const u of l.users) {
        if (this.users.has(u.user_id)) throw importProblem(line, `user ${u.user_id} is listed twice`, 'users');
        this.users.add(u.user_id);
      }
      this.stage = 'nodes';
      return;
    }
    switch (l.type) {
      case 'account':
        throw importProblem(line, 'an export has one account line, its first', 'type');
      case 'node':
        if (this.stage !== 'nodes') throw importProblem(line, 'nodes come before the sessions', 'type');
        this.assertOwner(l.uri, line);
        this.counts.nodes++;
        return;
      case 'session': {
        if (!this.users.has(l.user_id))
          throw importProblem(line, `user ${l.user_id} is not in the account line's users`, 'user_id');
        this.stage = 'sessions';
        this.session = { user_id: l.user_id, session_id: l.session_id };
        this.lastArchive = -1;
        this.lastSeq = 0;
        this.counts.sessions++;
        return;
      }
      case 'archive':
      case 'message': {
        const s = this.session;
        if (!s || s.user_id !== l.user_id || s.session_id !== l.session_id)
          throw importProblem(line, `a ${l.type} follows its session's line`, 'session_id');
        if (l.type === 'archive') {
          if (this.lastSeq > 0) throw importProblem(line, "a session's archives come before its messages", 'type');
          if (l.archive_index <= this.lastArchive)
            throw importProblem(line, 'archives come in archive_index order, each once', 'archive_index');
          this.lastArchive = l.archive_index;
          this.counts.archives++;
        } else {
          if (l.seq <= this.lastSeq) throw importProblem(line, 'messages come in seq order, each once', 'seq');
          this.lastSeq = l.seq;
          this.counts.messages++;
        }
        return;
      }
      case 'tool_result':
      case 'usage': {
        // After the session's line (and its archives and messages): they belong to it.
        const s = this.session;
        if (!s || s.user_id !== l.user_id || s.session_id !== l.session_id)
          throw importProblem(line, `a ${l.type} line follows its session's line`, 'session_id');
        this.lastSeq = Number.MAX_SAFE_INTEGER; // no archive or message of the session after them
        this.counts[l.type === 'usage' ? 'usage' : 'tool_results']++;
        return;
      }
      case 'end':
        for (const k of ['nodes', 'sessions', 'archives', 'messages', 'tool_results', 'usage'] as const) {
          if (k in l && l[k] !== this.counts[k])
            throw importProblem(line, `the end line counts ${l[k]} ${k}, the export held ${this.counts[k]}`, k);
        }
        this.stage = 'ended';
    }
  }

  /** A node in a user's space belongs to a user the account line lists (no node without its owner). */
  private assertOwner(uri: string, line: number): void {
    const [scope, owner] = uri.slice('viking://'.length).split('/');
    if (scope === 'user' && owner !== undefined && owner !== '' && !this.users.has(owner))
      throw importProblem(line, `user ${owner} is not in the account line's users`, 'uri');
  }

  /** Refuses an export that stopped before its end line (a cut download or upload). */
  assertEnded(lines: number): void {
    if (this.stage !== 'ended')
      throw importProblem(lines + 1, 'the export ends without its end line: it is incomplete');
  }
}

function safeCanonical(uri: string): string | null {
  try {
    return uri.startsWith('viking://') ? canonicalizeUri(uri, '_') : null;
  } catch {
    return null;
  }
}

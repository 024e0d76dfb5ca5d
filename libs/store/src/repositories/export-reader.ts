import type {
  ImportArchiveLine,
  ImportEndLine,
  ImportMessageLine,
  ImportNodeLine,
  ImportSessionLine,
  ImportToolResultLine,
  ImportUsageLine,
} from '@app/kernel';
import { Db } from '../db/db.port';

/** The export's format version: the first line names it, so a reader knows what the lines hold. */
export const ACCOUNT_EXPORT_FORMAT = 1;

/**
 * Pages of the export (docs/limits-and-security.md, "Exporting an account"): at most this many rows
 * listed per statement, and file bodies fetched together up to this many bytes (a larger body alone),
 * so an export holds one page in memory whatever the account's size.
 */
export const EXPORT_PAGE_ROWS = 500;
export const EXPORT_PAGE_BYTES = 4 * 1024 * 1024;

/** One line of an account's export; `type` says which. */
export type ExportLine =
  | {
      type: 'account';
      format: number;
      account_id: string;
      created_at: string;
      suspended_at: string | null;
      limits: Record<string, unknown>;
      users: { user_id: string; role: string; created_at: string }[];
      /** A user's export: the one user whose space and sessions it holds (the account's limits left out). */
      user_id?: string;
    }
  | (ImportNodeLine & { context_type: string })
  | ExportedSessionLine
  // The import's lines (one definition of their fields), with the store's values as read.
  | (Omit<ImportArchiveLine, 'status' | 'messages'> & { status: string; messages: unknown })
  | (Omit<ImportMessageLine, 'parts'> & { parts: unknown })
  | ImportToolResultLine
  | (Omit<ImportUsageLine, 'kind' | 'skill'> & { kind: string; skill: unknown })
  | ImportEndLine;

const iso = (v: unknown) => new Date(v as string).toISOString();

/** Consecutive rows in groups of at most EXPORT_PAGE_BYTES (a larger row alone), in their order. */
export function byteGroups<T extends { bytes: number | string }>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const r of rows) {
    const b = Number(r.bytes) || 0;
    if (group.length > 0 && bytes + b > EXPORT_PAGE_BYTES) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(r);
    bytes += b;
  }
  if (group.length > 0) out.push(group);
  return out;
}

/** The account's own row, as the export's first line reports it. */
interface AccountRow {
  account_id: string;
  created_at: Date | string;
  suspended_at: Date | string | null;
  limits: Record<string, unknown> | null;
}

interface NodeHead {
  uri: string;
  kind: 'file' | 'directory';
  context_type: string;
  tags: string[];
  created_at: Date | string;
  updated_at: Date | string;
  bytes: number;
  description: string | null;
}

/**
 * The reads of one export (docs/limits-and-security.md, "Exporting an account"), on the store or inside its
 * snapshot transaction (`AccountExportRepository` decides): every statement a page under the store's timeout.
 */
export class ExportReader {
  constructor(
    private readonly db: Pick<Db, 'query'>,
    /** Only this user's space and sessions (a user's export); null: the whole account. */
    private readonly userId: string | null = null,
  ) {}

  /** The user's root and the prefix of everything below it; nulls for the whole account. */
  private userSpace(): [string | null, string | null] {
    if (this.userId === null) return [null, null];
    const root = `viking://user/${this.userId}`;
    return [root, `${root}/`];
  }

  /** Nothing when the account is gone by the time the export starts reading. */
  async *lines(accountId: string): AsyncGenerator<ExportLine> {
    const found = await this.db.query<AccountRow>(
      'SELECT account_id, created_at, suspended_at, limits FROM accounts WHERE account_id = $1',
      [accountId],
    );
    const account = found.rows[0];
    if (!account) return;
    const id = account.account_id;
    const users = await this.db.query<{ user_id: string; role: string; created_at: Date | string }>(
      'SELECT user_id, role, created_at FROM users WHERE account_id = $1 AND ($2::text IS NULL OR user_id = $2) ORDER BY user_id',
      [id, this.userId],
    );
    yield {
      type: 'account',
      format: ACCOUNT_EXPORT_FORMAT,
      account_id: id,
      created_at: iso(account.created_at),
      suspended_at: account.suspended_at === null ? null : iso(account.suspended_at),
      limits: this.userId === null ? (account.limits ?? {}) : {},
      users: users.rows.map((u) => ({ user_id: u.user_id, role: u.role, created_at: iso(u.created_at) })),
      ...(this.userId === null ? {} : { user_id: this.userId }),
    };
    const counts = { nodes: 0, sessions: 0, archives: 0, messages: 0, tool_results: 0, usage: 0 };
    for await (const line of this.nodes(id)) {
      counts.nodes++;
      yield line;
    }
    const counted = {
      session: 'sessions',
      archive: 'archives',
      message: 'messages',
      tool_result: 'tool_results',
    } as const;
    for await (const line of this.sessions(id)) {
      counts[line.type === 'usage' ? 'usage' : counted[line.type as keyof typeof counted]]++;
      yield line;
    }
    yield { type: 'end', ...counts };
  }

  /** Nodes in URI order: heads listed a page at a time, bodies fetched in groups of at most EXPORT_PAGE_BYTES. */
  private async *nodes(accountId: string): AsyncGenerator<ExportLine> {
    let after = '';
    for (;;) {
      // octet_length reads a stored body's length from its header, without reading the body.
      const { rows } = await this.db.query<NodeHead>(
        `SELECT uri, kind, context_type, tags, created_at, updated_at, octet_length(content) AS bytes, description
         FROM nodes WHERE account_id = $1 AND uri > $2 AND ($3::text IS NULL OR uri = $3 OR starts_with(uri, $4))
         ORDER BY uri LIMIT ${EXPORT_PAGE_ROWS}`,
        [accountId, after, ...this.userSpace()],
      );
      if (rows.length === 0) return;
      for (const group of byteGroups(rows)) {
        const files = group.filter((n) => n.kind === 'file').map((n) => n.uri);
        const bodies = new Map<string, string>();
        if (files.length > 0) {
          const got = await this.db.query<{ uri: string; content: string }>(
            'SELECT uri, content FROM nodes WHERE account_id = $1 AND uri = ANY($2::text[])',
            [accountId, files],
          );
          for (const r of got.rows) bodies.set(r.uri, r.content);
        }
        for (const n of group) {
          const body = bodies.get(n.uri);
          // A file deleted between the two reads is left out; a directory has no body.
          if (n.kind === 'file' && body === undefined) continue;
          yield {
            type: 'node',
            uri: n.uri,
            kind: n.kind,
            context_type: n.context_type,
            tags: n.tags ?? [],
            created_at: iso(n.created_at),
            updated_at: iso(n.updated_at),
            ...(n.kind === 'file' ? { content: body } : {}),
            ...(n.kind === 'directory' && n.description ? { description: n.description } : {}),
          };
        }
      }
      after = rows[rows.length - 1].uri;
    }
  }

  /** Sessions in (user, session) order, each followed by its archives and its live messages. */
  private async *sessions(accountId: string): AsyncGenerator<ExportLine> {
    let after: [string, string] = ['', ''];
    for (;;) {
      const { rows } = await this.db.query<SessionExportRow>(
        `SELECT user_id, session_id, created_at, updated_at, commit_count, event_tags, auto_commit_policy,
           memory_policy, retention_mode, keep_recent_count, keep_recent_turn_count, retained_message_token_budget,
           min_raw_tail_steps, last_commit_at, last_auto_commit_at, memories_extracted, llm_token_usage
         FROM sessions WHERE account_id = $1 AND (user_id, session_id) > ($2, $3) AND ($4::text IS NULL OR user_id = $4)
         ORDER BY user_id, session_id LIMIT ${EXPORT_PAGE_ROWS}`,
        [accountId, ...after, this.userId],
      );
      if (rows.length === 0) return;
      for (const s of rows) {
        yield sessionLine(s);
        yield* this.archives(accountId, s.user_id, s.session_id);
        yield* this.messages(accountId, s.user_id, s.session_id);
        yield* this.records(accountId, s.user_id, s.session_id);
      }
      const last = rows[rows.length - 1];
      after = [last.user_id, last.session_id];
    }
  }

  /** A session's archives, one per statement: an archive holds a whole commit's messages. */
  private async *archives(accountId: string, userId: string, sessionId: string): AsyncGenerator<ExportLine> {
    let after = -1;
    for (;;) {
      const { rows } = await this.db.query<{
        archive_index: number;
        status: string;
        created_at: Date | string;
        abstract: string;
        overview: string;
        messages: unknown;
      }>(
        `SELECT archive_index, status, created_at, abstract, overview, messages FROM session_archives
         WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND archive_index > $4
         ORDER BY archive_index LIMIT 1`,
        [accountId, userId, sessionId, after],
      );
      const a = rows[0];
      if (!a) return;
      yield {
        type: 'archive',
        user_id: userId,
        session_id: sessionId,
        archive_index: a.archive_index,
        status: a.status,
        created_at: iso(a.created_at),
        abstract: a.abstract,
        overview: a.overview,
        messages: a.messages,
      };
      after = a.archive_index;
    }
  }

  /**
   * A session's tool-result records and its usage records no commit consumed yet (few and small: a session holds
   * at most MUNINN_SESSION_MAX_USAGE_RECORDS of them), after its messages.
   */
  private async *records(accountId: string, userId: string, sessionId: string): AsyncGenerator<ExportLine> {
    const owner = [accountId, userId, sessionId];
    // The record's columns as the import's line names them.
    const results = await this.db.query<
      Omit<ImportToolResultLine, 'type' | 'user_id' | 'session_id' | 'created_at'> & { created_at: Date | string }
    >(
      `SELECT tool_result_id, tool_id, tool_name, message_id, mime_type, original_chars, preview_chars, sha256, reason,
         created_at FROM session_tool_results WHERE account_id = $1 AND user_id = $2 AND session_id = $3
       ORDER BY created_at, tool_result_id`,
      owner,
    );
    for (const t of results.rows)
      yield { type: 'tool_result', user_id: userId, session_id: sessionId, ...t, created_at: iso(t.created_at) };
    const usage = await this.db.query<{ kind: string; uri: string; skill: unknown; created_at: Date | string }>(
      `SELECT kind, uri, skill, created_at FROM session_usage
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND consumed_by IS NULL ORDER BY id`,
      owner,
    );
    for (const u of usage.rows)
      yield {
        type: 'usage',
        user_id: userId,
        session_id: sessionId,
        kind: u.kind,
        uri: u.uri,
        skill: u.skill ?? null,
        created_at: iso(u.created_at),
      };
  }

  /**
   * A session's live (not yet committed) messages in order: their sizes listed a page at a time (from
   * the stored values' headers), the messages fetched in groups of at most EXPORT_PAGE_BYTES.
   */
  private async *messages(accountId: string, userId: string, sessionId: string): AsyncGenerator<ExportLine> {
    const owner = [accountId, userId, sessionId];
    let after = -1;
    for (;;) {
      const heads = await this.db.query<{ seq: number; bytes: number | string }>(
        `SELECT seq, octet_length(content) + coalesce(pg_column_size(parts), 0) AS bytes FROM messages
         WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND seq > $4
         ORDER BY seq LIMIT ${EXPORT_PAGE_ROWS}`,
        [...owner, after],
      );
      if (heads.rows.length === 0) return;
      for (const group of byteGroups(heads.rows)) {
        const { rows } = await this.db.query<{
          seq: number;
          message_id: string;
          role: string;
          content: string;
          parts: unknown;
          extra: Record<string, unknown> | null;
          created_at: Date | string;
        }>(
          `SELECT seq, message_id, role, content, parts, extra, created_at FROM messages
           WHERE account_id = $1 AND user_id = $2 AND session_id = $3 AND seq = ANY($4::int[]) ORDER BY seq`,
          [...owner, group.map((m) => m.seq)],
        );
        for (const m of rows) {
          yield {
            type: 'message',
            user_id: userId,
            session_id: sessionId,
            seq: m.seq,
            message_id: m.message_id,
            role: m.role,
            content: m.content,
            parts: m.parts ?? null,
            extra: m.extra ?? {},
            created_at: iso(m.created_at),
          };
        }
      }
      after = heads.rows[heads.rows.length - 1].seq;
    }
  }
}

/**
 * A session with its settings and counters as its meta shows them (docs/sessions.md "Session meta"): the
 * line the import reads (`ImportSessionLine`), its policies as stored.
 */
type ExportedSessionLine = Omit<ImportSessionLine, 'auto_commit_policy' | 'memory_policy'> & {
  auto_commit_policy: unknown;
  memory_policy: unknown;
};

interface SessionExportRow {
  user_id: string;
  session_id: string;
  created_at: Date | string;
  updated_at: Date | string;
  commit_count: number;
  event_tags: string[] | null;
  auto_commit_policy: unknown;
  memory_policy: unknown;
  retention_mode: string;
  keep_recent_count: number;
  keep_recent_turn_count: number;
  retained_message_token_budget: number;
  min_raw_tail_steps: number;
  last_commit_at: Date | string | null;
  last_auto_commit_at: Date | string | null;
  memories_extracted: Record<string, number> | null;
  llm_token_usage: Record<string, number> | null;
}

function sessionLine(s: SessionExportRow): ExportLine {
  return {
    type: 'session',
    user_id: s.user_id,
    session_id: s.session_id,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
    commit_count: s.commit_count,
    event_tags: s.event_tags ?? [],
    auto_commit_policy: s.auto_commit_policy ?? null,
    memory_policy: s.memory_policy ?? null,
    retention_mode: s.retention_mode === 'turn_budget' ? 'turn_budget' : '',
    keep_recent_count: s.keep_recent_count,
    keep_recent_turn_count: s.keep_recent_turn_count,
    retained_message_token_budget: s.retained_message_token_budget,
    min_raw_tail_steps: s.min_raw_tail_steps,
    last_commit_at: s.last_commit_at === null ? null : iso(s.last_commit_at),
    last_auto_commit_at: s.last_auto_commit_at === null ? null : iso(s.last_auto_commit_at),
    memories_extracted: s.memories_extracted ?? {},
    llm_token_usage: s.llm_token_usage ?? {},
  };
}

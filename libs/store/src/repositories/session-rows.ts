import type { Identity, IdleState, SessionMessage } from '@app/kernel';

/** The session meta as stored (docs/sessions.md "Session meta"). */
export interface SessionRecord {
  session_id: string;
  uri: string;
  total_message_count: number;
  message_count: number;
  created_at: string;
  updated_at: string;
  pending_tokens: number;
  commit_count: number;
  keep_recent_count: number;
  last_commit_at: string;
  last_message_at: string;
  last_auto_commit_at: string;
  auto_commit_policy: unknown;
  memory_policy: unknown;
  retention_mode: string;
  keep_recent_turn_count: number;
  retained_message_token_budget: number;
  min_raw_tail_steps: number;
  event_tags: string[];
  memories_extracted: Record<string, number>;
  llm_token_usage: Record<string, number>;
}

/** What the automatic-commit decisions read of a session (docs/sessions.md "Automatic commit"). */
export function commitStateOf(s: SessionRecord): IdleState {
  const ms = (iso: string) => (iso ? Date.parse(iso) : null);
  return {
    pendingTokens: s.pending_tokens,
    messageCount: s.message_count,
    keepRecentCount: s.keep_recent_count,
    lastAutoCommitAt: ms(s.last_auto_commit_at),
    lastMessageAt: ms(s.last_message_at),
  };
}

export interface SessionRow {
  session_id: string;
  total_message_count: number;
  message_count: number;
  created_at: Date | string;
  updated_at: Date | string;
  pending_tokens: number;
  commit_count: number;
  keep_recent_count: number;
  last_commit_at: Date | string | null;
  last_message_at: Date | string | null;
  last_auto_commit_at: Date | string | null;
  auto_commit_policy: unknown;
  memory_policy: unknown;
  retention_mode: string;
  keep_recent_turn_count: number;
  retained_message_token_budget: number;
  min_raw_tail_steps: number;
  event_tags: string[] | null;
  memories_extracted: Record<string, number> | null;
  llm_token_usage: Record<string, number> | null;
}

export const SESSION_SELECT = `SELECT s.session_id, s.total_message_count, s.created_at, s.updated_at, s.pending_tokens,
  s.commit_count, s.keep_recent_count, s.last_commit_at, s.last_message_at, s.last_auto_commit_at, s.auto_commit_policy,
  s.memory_policy, s.retention_mode, s.keep_recent_turn_count, s.retained_message_token_budget, s.min_raw_tail_steps,
  s.event_tags, s.memories_extracted, s.llm_token_usage,
  (SELECT count(*)::int FROM messages m WHERE m.account_id = s.account_id AND m.user_id = s.user_id
     AND m.session_id = s.session_id) AS message_count
  FROM sessions s`;

const iso = (v: Date | string | null): string => (v === null ? '' : new Date(v).toISOString());

export function sessionUri(userId: string, sessionId: string): string {
  return `viking://user/${userId}/sessions/${sessionId}`;
}

export function toSessionRecord(identity: Pick<Identity, 'userId'>, r: SessionRow): SessionRecord {
  return {
    session_id: r.session_id,
    uri: sessionUri(identity.userId, r.session_id),
    total_message_count: Number(r.total_message_count),
    message_count: Number(r.message_count),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    pending_tokens: Number(r.pending_tokens),
    commit_count: Number(r.commit_count),
    keep_recent_count: Number(r.keep_recent_count),
    last_commit_at: iso(r.last_commit_at),
    last_message_at: iso(r.last_message_at),
    last_auto_commit_at: iso(r.last_auto_commit_at),
    auto_commit_policy: r.auto_commit_policy ?? null,
    memory_policy: r.memory_policy ?? null,
    retention_mode: r.retention_mode ?? '',
    keep_recent_turn_count: Number(r.keep_recent_turn_count ?? 0),
    retained_message_token_budget: Number(r.retained_message_token_budget ?? 0),
    min_raw_tail_steps: Number(r.min_raw_tail_steps ?? 1),
    event_tags: r.event_tags ?? [],
    memories_extracted: r.memories_extracted ?? {},
    llm_token_usage: r.llm_token_usage ?? {},
  };
}

export interface MessageRow {
  message_id: string;
  role: string;
  content: string;
  parts: Record<string, unknown>[] | null;
  extra: Record<string, unknown> | null;
  created_at: Date | string;
}

export const MESSAGE_COLUMNS = 'message_id, role, content, parts, extra, created_at';

/** A stored message in its wire shape: optional keys only when set, the client's created_at verbatim. */
export function toSessionMessage(r: MessageRow): SessionMessage {
  const extra = r.extra ?? {};
  const m: SessionMessage = {
    id: r.message_id,
    role: r.role,
    parts: r.parts ?? [{ type: 'text', text: r.content }],
    created_at: typeof extra.created_at === 'string' ? extra.created_at : new Date(r.created_at).toISOString(),
  };
  if (typeof extra.peer_id === 'string') m.peer_id = extra.peer_id;
  if (typeof extra.turn_id === 'string') m.turn_id = extra.turn_id;
  if (typeof extra.message_kind === 'string') m.message_kind = extra.message_kind;
  if (Array.isArray(extra.source_message_ids)) m.source_message_ids = extra.source_message_ids as string[];
  return m;
}

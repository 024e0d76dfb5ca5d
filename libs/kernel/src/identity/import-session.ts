import { KernelError } from '../kernel.error';
import { AutoCommitPolicy, normaliseAutoCommitPolicy } from '../session/auto-commit';
import { MemoryPolicy, normaliseMemoryPolicy } from '../session/memory-policy';
import { Fields, importProblem, USER_ID } from './import-fields';

/**
 * A session line of an account export (docs/limits-and-security.md, "Importing an account"): the session
 * with its settings and counters as its meta shows them (docs/sessions.md "Session meta"), so an imported
 * session commits, retains and extracts as it did. Exports written before the settings were exported
 * lack them: such a session takes a new session's defaults.
 */

/** What a session was told to do: its policies, the retention its last commit asked for, its counters. */
export interface ImportSessionSettings {
  auto_commit_policy: AutoCommitPolicy | null;
  memory_policy: MemoryPolicy | null;
  retention_mode: (typeof RETENTION_MODES)[number];
  keep_recent_count: number;
  keep_recent_turn_count: number;
  retained_message_token_budget: number;
  min_raw_tail_steps: number;
  last_commit_at: string | null;
  last_auto_commit_at: string | null;
  memories_extracted: Record<string, number>;
  llm_token_usage: Record<string, number>;
}

export interface ImportSessionLine extends ImportSessionSettings {
  type: 'session';
  user_id: string;
  session_id: string;
  created_at: string;
  updated_at: string;
  commit_count: number;
  event_tags: string[];
}

const RETENTION_MODES = ['', 'turn_budget'] as const;
/** Keys of a session's counter object at most (the server keeps three in each). */
const MAX_COUNTERS = 16;

export function readSessionLine(
  r: Fields,
  line: number,
  bounds: { maxTags: number; maxTagChars: number },
): ImportSessionLine {
  const has = (k: string) => r.has(k) && r.raw(k) !== null;
  return {
    type: 'session',
    user_id: r.match('user_id', USER_ID),
    session_id: r.sessionId(),
    created_at: r.date('created_at'),
    updated_at: r.date('updated_at'),
    commit_count: r.int('commit_count', 0),
    event_tags: r.strings('event_tags', bounds.maxTags, bounds.maxTagChars),
    auto_commit_policy: has('auto_commit_policy')
      ? policy(line, () => normaliseAutoCommitPolicy(r.raw('auto_commit_policy')))
      : null,
    memory_policy: has('memory_policy') ? policy(line, () => normaliseMemoryPolicy(r.raw('memory_policy'))) : null,
    retention_mode: r.has('retention_mode') ? r.oneOf('retention_mode', RETENTION_MODES) : '',
    // The retention a commit may ask for, within the commit route's own bounds.
    keep_recent_count: r.has('keep_recent_count') ? r.int('keep_recent_count', 0, 10_000) : 0,
    keep_recent_turn_count: r.has('keep_recent_turn_count') ? r.int('keep_recent_turn_count', 0, 10_000) : 0,
    retained_message_token_budget: r.has('retained_message_token_budget')
      ? r.int('retained_message_token_budget', 0, 10_000_000)
      : 0,
    min_raw_tail_steps: r.has('min_raw_tail_steps') ? r.int('min_raw_tail_steps', 0, 10_000) : 1,
    last_commit_at: r.dateOrNull('last_commit_at'),
    last_auto_commit_at: r.dateOrNull('last_auto_commit_at'),
    memories_extracted: counters(r, line, 'memories_extracted'),
    llm_token_usage: counters(r, line, 'llm_token_usage'),
  };
}

/** A policy checked as the session routes check it; its refusal names the line and the policy's field. */
function policy<T>(line: number, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
    throw importProblem(line, err.message, field);
  }
}

/**
 * A session's counters (`memory_write`, `memory_edit`, `total`; `prompt_tokens`, `completion_tokens`,
 * `total_tokens`): each a non-negative integer, at most 16 keys. Other names are kept, not refused: a backup
 * must come back even if a version wrote one, and the next extraction rebuilds the object from its keys.
 */
function counters(r: Fields, line: number, k: 'memories_extracted' | 'llm_token_usage'): Record<string, number> {
  if (!r.has(k)) return {};
  const raw = r.object(k);
  const keys = Object.keys(raw);
  if (keys.length > MAX_COUNTERS) throw importProblem(line, `${k} must hold at most ${MAX_COUNTERS} counters`, k);
  const o = new Fields(raw, line, `${k}.`);
  const out: Record<string, number> = {};
  for (const key of keys) {
    if (key.length > 64) throw importProblem(line, `${k} has a counter name over 64 characters`, k);
    out[key] = o.int(key, 0);
  }
  return out;
}

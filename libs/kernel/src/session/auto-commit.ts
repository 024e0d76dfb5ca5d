import { KernelError, KernelErrorCode } from '../kernel.error';

/** The automatic-commit policy of a session (docs/sessions.md "Automatic commit"). */
export interface AutoCommitPolicy {
  pending_token_threshold: number;
  message_count_threshold: number;
  idle_timeout_seconds: number;
  keep_recent_count: number;
  min_commit_interval_seconds: number;
}

export const DEFAULT_AUTO_COMMIT_POLICY: AutoCommitPolicy = {
  pending_token_threshold: 150_000,
  message_count_threshold: 100,
  idle_timeout_seconds: 86_400,
  keep_recent_count: 0,
  min_commit_interval_seconds: 0,
};

// Out-of-range values are clamped, not rejected (contract).
const RANGES: Record<keyof AutoCommitPolicy, number> = {
  pending_token_threshold: 1_000_000,
  message_count_threshold: 1_000,
  idle_timeout_seconds: 604_800,
  keep_recent_count: 1_000,
  min_commit_interval_seconds: 604_800,
};

const FIELDS = Object.keys(RANGES) as (keyof AutoCommitPolicy)[];

function integer(field: string, v: unknown): number {
  const n = typeof v === 'string' && /^-?\d{1,12}$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new KernelError(KernelErrorCode.InvalidArgument, `auto_commit_policy.${field} must be an integer`, {
      field: `auto_commit_policy.${field}`,
    });
  }
  return n;
}

/**
 * A policy object from a client, merged over `base` field by field and clamped. Unknown keys and
 * explicit nulls are errors (400 naming the field); numeric strings coerce.
 */
export function normaliseAutoCommitPolicy(
  input: unknown,
  base: AutoCommitPolicy = DEFAULT_AUTO_COMMIT_POLICY,
): AutoCommitPolicy {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new KernelError(KernelErrorCode.InvalidArgument, 'auto_commit_policy must be an object or null', {
      field: 'auto_commit_policy',
    });
  }
  const out = { ...base };
  for (const [k, v] of Object.entries(input)) {
    if (!FIELDS.includes(k as keyof AutoCommitPolicy)) {
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        `auto_commit_policy has an unknown field: ${k.slice(0, 64)}`,
        { field: `auto_commit_policy.${k.slice(0, 64)}` },
      );
    }
    if (v === null) {
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        `auto_commit_policy.${k} must not be null (use auto_commit_policy=null to disable)`,
        { field: `auto_commit_policy.${k}` },
      );
    }
    const key = k as keyof AutoCommitPolicy;
    out[key] = Math.min(RANGES[key], Math.max(0, integer(k, v)));
  }
  return out;
}

/** A stored policy (re-normalised on every load; anything unreadable counts as disabled). */
export function storedPolicy(raw: unknown): AutoCommitPolicy | null {
  if (raw === null || raw === undefined) return null;
  try {
    return normaliseAutoCommitPolicy(raw);
  } catch {
    return null;
  }
}

/** The session state an automatic-commit decision reads. */
export interface AutoCommitState {
  pendingTokens: number;
  messageCount: number;
  keepRecentCount: number;
  lastAutoCommitAt: number | null;
}

/**
 * When the session's threshold commit falls due: now when a threshold is strictly exceeded and the commit is not
 * throttled, the throttle's end (`min_commit_interval_seconds` after `last_auto_commit_at`) when it is; null when
 * no threshold is exceeded, or nothing is uncommitted beyond the keep window.
 */
export function thresholdCommitAt(policy: AutoCommitPolicy | null, s: AutoCommitState, nowMs: number): number | null {
  if (!policy) return null;
  if (!(s.pendingTokens > 0 || s.messageCount > s.keepRecentCount)) return null;
  const byTokens = policy.pending_token_threshold > 0 && s.pendingTokens > policy.pending_token_threshold;
  const byCount = policy.message_count_threshold > 0 && s.messageCount > policy.message_count_threshold;
  if (!byTokens && !byCount) return null;
  const interval = policy.min_commit_interval_seconds * 1000;
  return interval > 0 && s.lastAutoCommitAt !== null ? Math.max(nowMs, s.lastAutoCommitAt + interval) : nowMs;
}

/** The state an idle-commit decision reads: the auto-commit state plus the last message time. */
export interface IdleState extends AutoCommitState {
  lastMessageAt: number | null;
}

/**
 * Milliseconds until the session is idle-due (≤ 0: due now), or null when an idle commit does not
 * apply: no policy, idle timeout 0, nothing uncommitted (the keep window is ignored here), or throttled.
 */
export function idleCommitWait(policy: AutoCommitPolicy | null, s: IdleState, nowMs: number): number | null {
  if (!policy || policy.idle_timeout_seconds <= 0 || s.lastMessageAt === null) return null;
  if (!(s.pendingTokens > 0 || s.messageCount > 0)) return null;
  const due = s.lastMessageAt + policy.idle_timeout_seconds * 1000;
  const interval = policy.min_commit_interval_seconds * 1000;
  const free = interval > 0 && s.lastAutoCommitAt !== null ? s.lastAutoCommitAt + interval : 0;
  return Math.max(due, free) - nowMs;
}

/**
 * What a session's check does now (docs/sessions.md, "Automatic commit"): commit everything when the session is
 * idle-due, else commit by threshold when one is due; and in how many milliseconds the next check is due (null:
 * none), the earlier of the idle time and a throttled threshold commit's time. After a threshold commit the
 * idle check is still due for what the keep window kept.
 */
export function sessionCheck(
  policy: AutoCommitPolicy | null,
  s: IdleState,
  nowMs: number,
): { commit: 'idle' | 'threshold' | null; nextInMs: number | null } {
  const idle = idleCommitWait(policy, s, nowMs);
  if (idle !== null && idle <= 0) return { commit: 'idle', nextInMs: null };
  const threshold = thresholdCommitAt(policy, s, nowMs);
  if (threshold !== null && threshold <= nowMs) return { commit: 'threshold', nextInMs: idle };
  const waits = [idle, threshold === null ? null : threshold - nowMs].filter((w): w is number => w !== null);
  return { commit: null, nextInMs: waits.length > 0 ? Math.min(...waits) : null };
}

/** Event tags: trimmed, lower-cased `k=v` pairs; invalid ones dropped, a repeated key keeps its last value. */
export function normaliseEventTags(tags: string[]): string[] {
  const byKey = new Map<string, string>();
  for (const raw of tags) {
    const t = raw.trim().toLowerCase();
    const eq = t.indexOf('=');
    if (eq <= 0 || eq === t.length - 1) continue;
    const key = t.slice(0, eq).trim();
    const value = t.slice(eq + 1).trim();
    if (!key || !value) continue;
    byKey.delete(key);
    byKey.set(key, `${key}=${value}`);
  }
  return [...byKey.values()];
}

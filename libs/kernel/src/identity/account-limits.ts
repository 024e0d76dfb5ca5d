/**
 * Per-account limits (docs/limits-and-security.md, "Per-account limits"): the deployment's limits are
 * configuration, the same for every tenant; an operator may give one account other values (a larger
 * customer, a trial held tighter). What can be set, its bounds, and how an account's values are read.
 */

/** The limits an account may be given its own value of, with the bounds of their variables. */
export const ACCOUNT_LIMITS = {
  /** Requests per minute of the whole account (`MUNINN_RATE_ACCOUNT_PER_MINUTE`). */
  requests_per_minute: { variable: 'MUNINN_RATE_ACCOUNT_PER_MINUTE', min: 1, max: 10_000_000 },
  /** Model tokens per UTC day; 0: no budget (`MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY`). */
  model_tokens_per_day: { variable: 'MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY', min: 0, max: 1_000_000_000_000 },
  /** Files and directories (`MUNINN_ACCOUNT_MAX_NODES`). */
  max_nodes: { variable: 'MUNINN_ACCOUNT_MAX_NODES', min: 10, max: 1_000_000_000 },
  /** UTF-8 bytes of content (`MUNINN_ACCOUNT_MAX_CONTENT_BYTES`). */
  max_content_bytes: { variable: 'MUNINN_ACCOUNT_MAX_CONTENT_BYTES', min: 1024, max: Number.MAX_SAFE_INTEGER },
  /** Sessions held (`MUNINN_ACCOUNT_MAX_SESSIONS`). */
  max_sessions: { variable: 'MUNINN_ACCOUNT_MAX_SESSIONS', min: 1, max: 100_000_000 },
  /** Users registered, the first admin included (`MUNINN_ACCOUNT_MAX_USERS`). */
  max_users: { variable: 'MUNINN_ACCOUNT_MAX_USERS', min: 1, max: 10_000_000 },
  /** Files written and not yet indexed; 0: unbounded (`MUNINN_ACCOUNT_MAX_PENDING_INDEX`). */
  max_pending_index: { variable: 'MUNINN_ACCOUNT_MAX_PENDING_INDEX', min: 0, max: 10_000_000 },
  /** Commits awaiting extraction; 0: unbounded (`MUNINN_ACCOUNT_MAX_PENDING_COMMITS`). */
  max_pending_commits: { variable: 'MUNINN_ACCOUNT_MAX_PENDING_COMMITS', min: 0, max: 1_000_000 },
  /** Requests of the account running at once on each gateway (`MUNINN_ACCOUNT_MAX_INFLIGHT`). */
  max_inflight: { variable: 'MUNINN_ACCOUNT_MAX_INFLIGHT', min: 1, max: 10_000 },
  /** Greps and globs of the account running at once on each gateway (`MUNINN_ACCOUNT_MAX_SCANS`). */
  max_scans: { variable: 'MUNINN_ACCOUNT_MAX_SCANS', min: 1, max: 1000 },
  /** Large searches of the account running at once on each gateway (`MUNINN_ACCOUNT_MAX_LARGE_SEARCHES`). */
  max_large_searches: { variable: 'MUNINN_ACCOUNT_MAX_LARGE_SEARCHES', min: 1, max: 1000 },
  /** Requests with a large body of the account running at once on each gateway (`MUNINN_ACCOUNT_MAX_LARGE_BODIES`). */
  max_large_bodies: { variable: 'MUNINN_ACCOUNT_MAX_LARGE_BODIES', min: 1, max: 1000 },
} as const;

export type AccountLimitName = keyof typeof ACCOUNT_LIMITS;
/** An account's own values; a limit not named takes the deployment's. */
export type AccountLimitOverrides = Partial<Record<AccountLimitName, number>>;
/** Every limit as it applies to one account. */
export type AccountLimitValues = Record<AccountLimitName, number>;

export const ACCOUNT_LIMIT_NAMES = Object.keys(ACCOUNT_LIMITS) as AccountLimitName[];

/** The account's limits: its own values where it has them, the deployment's elsewhere. */
export function effectiveLimits(defaults: AccountLimitValues, own: AccountLimitOverrides): AccountLimitValues {
  const out = { ...defaults };
  for (const name of ACCOUNT_LIMIT_NAMES) if (own[name] !== undefined) out[name] = own[name];
  return out;
}

/** What a refusal names as a limit's source: the deployment's variable, or the account's own value. */
export function limitSource(name: AccountLimitName, own: AccountLimitOverrides): string {
  return own[name] === undefined ? ACCOUNT_LIMITS[name].variable : `the account's own ${name}`;
}

/**
 * An account's stored values, trusting nothing: a value that is not an integer within its limit's
 * bounds, or a name that is no limit, is left out (the deployment's value applies), so a row written by
 * an older or newer server can never lift a limit past its bounds.
 */
export function readLimitOverrides(stored: unknown): AccountLimitOverrides {
  const out: AccountLimitOverrides = {};
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return out;
  for (const name of ACCOUNT_LIMIT_NAMES) {
    const v = (stored as Record<string, unknown>)[name];
    const { min, max } = ACCOUNT_LIMITS[name];
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max) out[name] = v;
  }
  return out;
}

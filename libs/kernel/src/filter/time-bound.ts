import { invalidArgument } from '../kernel.error';

const RELATIVE = /^(\d+)([smhdw])$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const UNIT_MS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };

function utcDate(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): Date | null {
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  // setUTCFullYear silently rolls 2023-02-30 into March; Python rejects it.
  return date.getUTCDate() === day ? date : null;
}

function offsetMinutes(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return zone.startsWith('-') ? -minutes : minutes;
}

function parseIso(value: string): Date | null {
  const match = ISO.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  const local = utcDate(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms);
  if (!local) return null;
  return new Date(local.getTime() - offsetMinutes(zone) * 60e3);
}

/** Names the field: the same text for `since` and for a filter's `gte` left callers guessing which. */
function unparsable(label: string, text: string) {
  return invalidArgument(
    `${label}: Invalid isoformat string: '${text}' (expected 30d-style relative, YYYY-MM-DD or ISO-8601)`,
    { field: label },
  );
}

function checked(date: Date, label: string): Date {
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) {
    throw invalidArgument(`${label} is out of range`, { field: label });
  }
  return date;
}

/**
 * Parse a `since`/`until` bound (docs/contract.md#find-request): relative `\d+[smhdw]` (before `now`), `YYYY-MM-DD`
 * (start of day, or end of day for an upper bound), or ISO-8601 (UTC when no zone is given).
 */
export function parseTimeBound(
  value: string,
  now: Date,
  isUpperBound = false,
  label = isUpperBound ? 'until' : 'since',
): Date {
  const text = value.trim();
  const relative = RELATIVE.exec(text);
  if (relative) return checked(new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2]!]!), label);
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    const [, y, m, d] = dateOnly;
    const date = isUpperBound ? utcDate(+y!, +m!, +d!, 23, 59, 59, 999) : utcDate(+y!, +m!, +d!);
    if (!date) throw unparsable(label, text);
    return date;
  }
  const parsed = parseIso(text);
  if (!parsed) throw unparsable(label, text);
  return checked(parsed, label);
}

/** Resolve both bounds; blank ones are null, an inverted range is INVALID_ARGUMENT. */
export function resolveTimeBounds(
  since: string | null | undefined,
  until: string | null | undefined,
  now: Date,
): { since: Date | null; until: Date | null } {
  const lower = (since ?? '').trim() ? parseTimeBound(since!, now, false, 'since') : null;
  const upper = (until ?? '').trim() ? parseTimeBound(until!, now, true, 'until') : null;
  if (lower && upper && lower.getTime() > upper.getTime()) {
    throw invalidArgument('since must be earlier than or equal to until');
  }
  return { since: lower, until: upper };
}

/** `time_field` (docs/contract.md#find-request): `updated_at` (default) or `created_at`. */
export function normalizeTimeField(value: string | null | undefined): 'updated_at' | 'created_at' {
  const field = (value ?? '').trim() || 'updated_at';
  if (field !== 'updated_at' && field !== 'created_at') {
    throw invalidArgument('time_field must be one of: updated_at, created_at');
  }
  return field;
}

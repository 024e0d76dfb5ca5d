import { trimEndChar } from '../text/trim';

/** Sentences of a text (split after . ! ? and their CJK forms, and at line breaks). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A path segment: lower-case letters and digits joined by `_`, at most `max` characters; '' when none. */
export function slug(text: string, max = 60): string {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return trimEndChar(words.join('_').slice(0, max), '_');
}

/** Characters of a session's slug in event file names, and hex digits of the hash added when the slug is lossy. */
const SESSION_SLUG_CHARS = 40;
const SESSION_HASH_HEX = 16;
/** Ids used as they are: what a file name can hold unchanged and never reads as hidden or hashed. */
const PLAIN_SESSION_KEY = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/**
 * The session's part of an event file name (docs/sessions.md "Event file names"): the session id itself
 * when it is lower-case letters, digits, `_` and `-` (at most 40 characters, a letter or digit first:
 * `s1`, `cc-7f3e…`, most UUIDs), else its slug (`session` when empty) + `.` + the first 16 hex digits of
 * the id's SHA-256. A plain key never holds `.`, so a hashed key never equals one, and two ids share a
 * key only by sharing 64 bits of hash: `Col-A` and `col.a` no longer overwrite each other's events. A
 * hash costs about 8 tokens in every URI of the block, so ids that need none keep their own name. The
 * digest is the caller's (the kernel imports no crypto, docs/architecture.md); it must be of `sessionId`.
 */
export function sessionFileKey(sessionId: string, sha256Hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256Hex)) throw new Error('sessionFileKey needs the hex SHA-256 of the session id');
  if (PLAIN_SESSION_KEY.test(sessionId)) return sessionId;
  return `${slug(sessionId, SESSION_SLUG_CHARS) || 'session'}.${sha256Hex.slice(0, SESSION_HASH_HEX)}`;
}

/** The text cut to `max` characters on a word boundary when possible, with an ellipsis. */
export function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * A date for memory paths and headings: the client's `created_at` if it parses, else `fallbackIso`.
 * `long` ("Monday 8 May 2023") carries the words questions use ("in May"), which an ISO date does not.
 */
export function eventDate(
  createdAt: string | undefined,
  fallbackIso: string,
): { iso: string; weekday: string; long: string; ymd: [string, string, string] } {
  const parsed = createdAt && createdAt.length <= 64 ? Date.parse(createdAt) : NaN;
  const d = new Date(Number.isFinite(parsed) ? parsed : Date.parse(fallbackIso));
  const iso = d.toISOString().slice(0, 10);
  const weekday = WEEKDAYS[d.getUTCDay()];
  const long = `${weekday} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return { iso, weekday, long, ymd: [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)] };
}

import { invalidArgument } from '../kernel.error';

// One rule for session ids, wherever one arrives (docs/sessions.md "Session ids"): the session routes'
// path segment, a body's `session_id` (POST /sessions, context search, /recall, MCP search and recall)
// and the store, which creates no session the routes could not address. `.` and `..` are refused like
// peer ids: as a URI segment they name the parent, so their archive files could never be read or deleted.

/** A session id: 1–128 of `[a-zA-Z0-9_.@-]`, not `.` or `..`. */
export const SESSION_ID_PATTERN = '^(?!\\.\\.?$)[a-zA-Z0-9_.@-]{1,128}$';
/** The same in a body field where `""` means none (POST /sessions generates one; a search runs without). */
export const SESSION_ID_OR_EMPTY_PATTERN = '^(?!\\.\\.?$)[a-zA-Z0-9_.@-]{0,128}$';
export const SESSION_ID_MESSAGE = 'session_id must match ^[a-zA-Z0-9_.@-]{1,128}$ and not be "." or ".."';

const SESSION_ID = new RegExp(SESSION_ID_PATTERN);

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** INVALID_ARGUMENT naming `session_id` unless `id` is a session id. */
export function assertSessionId(id: string): void {
  if (!isSessionId(id)) throw invalidArgument(SESSION_ID_MESSAGE, { field: 'session_id', value: id.slice(0, 200) });
}

import { invalidUri } from '../kernel.error';
import { trimEndChar } from '../text/trim';
import { identifierProblem } from './identifier';
import { VIKING_ROOT } from './uri-path';

/** Scopes a canonical URI may carry; `""` is the `viking://` root itself. */
export type VikingScope = '' | 'resources' | 'user' | 'agent';

/** A validated, canonical `viking://` URI split into its scope and segments. */
export interface ParsedVikingUri {
  uri: string;
  scope: VikingScope;
  segments: readonly string[];
}

const PUBLIC_SCOPES = new Set(['agent', 'resources', 'session', 'user', '~']);
const RESERVED_USER_SEGMENTS = new Set(['memories', 'resources', 'skills', 'peers', 'privacy', 'sessions']);
// C0 controls, DEL and C1 controls: never part of a name, and a classic log/header injection vector.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
const ENCODED_DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Validate a caller-supplied URI and return it canonical (docs/contract.md#uri-layout); throws INVALID_URI. */
export function parseVikingUri(raw: string, userId: string): ParsedVikingUri {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!text) throw invalidUri(String(raw ?? ''), 'uri must not be empty');
  if (!text.startsWith(VIKING_ROOT)) throw invalidUri(text, "URI must start with 'viking://'");
  if (CONTROL_CHARS.test(text)) throw invalidUri(text, 'URI must not contain control characters');
  if (text.includes('\\')) throw invalidUri(text, 'URI must not contain backslashes');
  if (ENCODED_SEPARATOR.test(text)) throw invalidUri(text, 'URI must not contain percent-encoded separators');

  const path = trimEndChar(text.slice(VIKING_ROOT.length), '/');
  if (path === '') return { uri: VIKING_ROOT, scope: '', segments: [] };
  const parts = path.split('/');
  for (const part of parts) {
    if (part === '') throw invalidUri(text, 'URI must not contain empty path segments');
    if (ENCODED_DOT_SEGMENT.test(part)) throw invalidUri(text, "URI must not contain '.' or '..' segments");
  }
  if (!PUBLIC_SCOPES.has(parts[0]!)) {
    throw invalidUri(text, `Invalid scope '${parts[0]}'. Must be one of: agent, resources, session, user`);
  }
  const segments = expandAliases(parts, userId);
  if (segments[0] === 'user') checkUserSegments(text, segments, userId);
  return {
    uri: VIKING_ROOT + segments.join('/'),
    scope: segments[0] as VikingScope,
    segments,
  };
}

/** Canonical string form of {@link parseVikingUri}. */
export function canonicalizeUri(raw: string, userId: string): string {
  return parseVikingUri(raw, userId).uri;
}

function expandAliases(parts: string[], userId: string): string[] {
  const [head, ...rest] = parts;
  if (head === '~') return ['user', userId, ...rest];
  if (head === 'session') return ['user', userId, 'sessions', ...rest];
  return parts;
}

function checkUserSegments(text: string, segments: string[], userId: string): void {
  if (segments.length < 2) return;
  const owner = segments[1]!;
  if (owner !== userId && RESERVED_USER_SEGMENTS.has(owner)) {
    const rest = segments.slice(1).join('/');
    throw invalidUri(
      text,
      `'viking://user/${rest}' does not expand to the current user's space: '${owner}' is a reserved name, ` +
        `not a user id. Use 'viking://~/${rest}' for the current user, or 'viking://user/{user_id}/${rest}'.`,
    );
  }
  const ownerProblem = identifierProblem(owner, 'user_id');
  if (ownerProblem) throw invalidUri(text, `Invalid user_id: ${ownerProblem}`);
  if (segments.length >= 4 && segments[2] === 'peers') {
    const peerProblem = identifierProblem(segments[3]!, 'peer_id');
    if (peerProblem) throw invalidUri(text, `Invalid peer_id: ${peerProblem}`);
  }
}

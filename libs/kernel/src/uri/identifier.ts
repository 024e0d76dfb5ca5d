import { invalidArgument } from '../kernel.error';

const IDENTIFIER = /^[a-zA-Z0-9_.@-]+$/;

/** Reason an account/user/peer id segment is unsafe, or null when it is valid. */
export function identifierProblem(part: string, label: string): string | null {
  if (part === '') return `${label} is empty`;
  if (part === '.' || part === '..') return `${label} must not be '.' or '..'`;
  if (!IDENTIFIER.test(part)) return `${label} must be alpha_numeric string.`;
  if (part.split('@').length > 2) return `${label} must have at most one @.`;
  return null;
}

/** Parse `X-OpenViking-Actor-Peer` (docs/contract.md#actor-peer): trimmed, empty → null, unsafe → INVALID_ARGUMENT. */
export function validateActorPeer(header: string | null | undefined, maxChars: number): string | null {
  const value = (header ?? '').trim();
  if (!value) return null;
  if (value.includes('/') || value.includes('\\')) {
    throw invalidArgument('actor_peer_id must not contain path separators.');
  }
  const problem = identifierProblem(value, 'peer_id') ?? lengthProblem(value, 'peer_id', maxChars);
  if (problem) throw invalidArgument(`Invalid peer_id: ${problem}`, { field: 'X-OpenViking-Actor-Peer' });
  return value;
}

/**
 * Dev mode's `X-OpenViking-Account` / `X-OpenViking-User` (docs/limits-and-security.md, "Keys and roles"):
 * trimmed, empty → null (the caller uses `default`), else the same rules as ids an admin registers.
 */
export function validateHeaderId(
  header: string | null | undefined,
  label: 'account_id' | 'user_id',
  maxChars: number,
): string | null {
  const value = (header ?? '').trim();
  if (!value) return null;
  const problem = identifierProblem(value, label) ?? lengthProblem(value, label, maxChars);
  const name = label === 'account_id' ? 'X-OpenViking-Account' : 'X-OpenViking-User';
  if (problem) throw invalidArgument(`Invalid ${name} header: ${problem}`, { field: name });
  return value;
}

function lengthProblem(value: string, label: string, maxChars: number): string | null {
  return value.length > maxChars
    ? `${label} has ${value.length} characters; at most ${maxChars} are allowed (MUNINN_ID_MAX_CHARS)`
    : null;
}

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
export function validateActorPeer(header: string | null | undefined): string | null {
  const value = (header ?? '').trim();
  if (!value) return null;
  if (value.includes('/') || value.includes('\\')) {
    throw invalidArgument('actor_peer_id must not contain path separators.');
  }
  const problem = identifierProblem(value, 'peer_id');
  if (problem) throw invalidArgument(`Invalid peer_id: ${problem}`);
  return value;
}

import type { Identity } from '@app/kernel';

/**
 * The SQL predicate that confines a query to what `identity` may see: its account always; for non-root
 * callers only account-shared nodes and their own user space; with an actor peer, no other peer's subtree.
 * Placeholders start at `$first`; the returned params go after the caller's own.
 */
export function scopeSql(identity: Identity, first: number, alias = ''): { sql: string; params: unknown[] } {
  const a = alias ? `${alias}.` : '';
  const parts = [`${a}account_id = $${first}`];
  const params: unknown[] = [identity.accountId];
  if (identity.role !== 'root') {
    params.push(identity.userId);
    parts.push(`(${a}owner_user_id IS NULL OR ${a}owner_user_id = $${first + params.length - 1})`);
  }
  if (identity.actorPeerId) {
    params.push(identity.actorPeerId);
    parts.push(`(${a}peer_id IS NULL OR ${a}peer_id = $${first + params.length - 1})`);
  }
  return { sql: parts.join(' AND '), params };
}

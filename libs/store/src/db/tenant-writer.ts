import { AsyncLocalStorage } from 'node:async_hooks';
import { KernelError, KernelErrorCode } from '@app/kernel';
import type { FirstWriteHook } from './first-write';

/** The registered user a request writes as (a user or admin key; not root, not dev mode's header identities). */
export interface TenantWriter {
  accountId: string;
  userId: string;
}

const writers = new AsyncLocalStorage<TenantWriter>();

/** Runs `fn` (and everything it starts) as `writer`'s request. */
export function runAsTenantWriter<T>(writer: TenantWriter, fn: () => T): T {
  return writers.run(writer, fn);
}

/**
 * A registered user's request's hook on its writes (docs/limits-and-security.md, "Tenant data on deletion";
 * first-write.ts): each transaction holds the writer's `users` row (FOR KEY SHARE) just before its first writing
 * statement. A user's or account's deletion removes that row first, so it waits for a write that holds it and then
 * removes what the write made too, and a write that comes after it finds no row and is refused (401), where it waited
 * and then landed under the deleted ids, for a user or account made again under them to find. Other writers' shares
 * of the row do not wait for each other.
 */
export function tenantWriterHook(): FirstWriteHook | undefined {
  const w = writers.getStore();
  if (!w) return undefined;
  return {
    async beforeWrite(tx) {
      const { rows } = await tx.query('SELECT 1 FROM users WHERE account_id = $1 AND user_id = $2 FOR KEY SHARE', [
        w.accountId,
        w.userId,
      ]);
      if (rows.length === 0)
        throw new KernelError(
          KernelErrorCode.Unauthenticated,
          'The key belongs to a user or account that was deleted',
          {
            account_id: w.accountId,
            user_id: w.userId,
          },
        );
    },
  };
}

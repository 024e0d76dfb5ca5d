import { AsyncLocalStorage } from 'node:async_hooks';
import { KernelError, KernelErrorCode, PendingIndexWait } from '@app/kernel';
import { Db } from './db.port';
import type { FirstWriteHook } from './first-write';

type Tx = Pick<Db, 'query' | 'kind'>;

/**
 * A request that holds an idempotency key (docs/limits-and-security.md, "Retrying a write:
 * Idempotency-Key"). While `open`, the request's first committed write also marks the key applied, in
 * that write's own transaction; `released` (its refusal freed the key) makes any later write of the
 * request fail rather than apply unrecorded; `finished` (its reply is kept) lets work it started in the
 * background write freely.
 */
export interface WriteScope {
  state: 'open' | 'finished' | 'released';
  /** A transaction of the request marked the key and committed. */
  applied: boolean;
  /** Marks the key applied inside `tx`; throws when another attempt holds the key now. */
  mark(tx: Tx): Promise<void>;
  /** The request stored its write, then its wait for the indexing ran out: what its retries wait for again. */
  pendingWait?: PendingIndexWait;
  /** Marks the key as not applied again (see {@link undoneWrites}). */
  unapply?(): Promise<void>;
}

const scopes = new AsyncLocalStorage<WriteScope>();

/**
 * Leaves, on the request's key (when it has one), what a retry waits for again after this request's wait for
 * its write's indexing ran out (docs/limits-and-security.md, "A retry after a wait that ran out").
 */
export function notePendingWait(wait: PendingIndexWait): void {
  const s = scopes.getStore();
  if (s) s.pendingWait = wait;
}

/**
 * Says the request has removed everything it wrote (a compensating delete after a later step failed): its key is
 * marked as not applied again, so the refusal it answers frees the key for a retry, as one that changed nothing.
 * Only after the removal succeeded; a request that stops between the two leaves its key applied (its retry is told
 * so, and applies nothing).
 */
export async function undoneWrites(): Promise<void> {
  const s = scopes.getStore();
  if (s?.state === 'open' && s.applied && s.unapply) await s.unapply();
}

/** Runs `fn` (and everything it starts) inside `scope`. */
export function runInWriteScope<T>(scope: WriteScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** Runs `fn` outside any write scope: the key's own bookkeeping must not mark itself. */
export function outsideWriteScope<T>(fn: () => T): T {
  return scopes.exit(fn);
}

/**
 * The idempotency key's hook on the request's writes (first-write.ts): outside a scope, or once the key is marked,
 * none. Inside an open scope whose key is not yet marked, each transaction marks the key just before its first
 * writing statement, and a single writing statement runs in a transaction that marks it first, so "the key says
 * applied" and "the write committed" are one fact. A released scope refuses any further write.
 */
export function writeScopeHook(): FirstWriteHook | undefined {
  const s = scopes.getStore();
  if (!s || s.state === 'finished' || (s.state === 'open' && s.applied)) return undefined;
  return {
    begin() {
      if (s.state === 'released')
        throw new KernelError(
          KernelErrorCode.Conflict,
          'This request already answered without applying; its Idempotency-Key was freed for a retry',
          { field: 'Idempotency-Key', reason: 'released' },
        );
    },
    // The key is marked by the transaction's first writing statement, just before it: a transaction that only read
    // and then answered a refusal without throwing (a reindex already running, a task not found) commits nothing,
    // and its request's key is freed like any other refusal's.
    beforeWrite: (tx) => s.mark(tx),
    committed(wrote) {
      if (wrote) s.applied = true;
    },
  };
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  cooledUris,
  DedupStatus,
  Identity,
  KernelError,
  KernelErrorCode,
  LedgerStore,
  parseLedger,
  recordServed,
} from '@app/kernel';
import { LEDGER_STORE, ledgerKey, ledgerScopePrefix } from '@app/queue';

/** The ledger as loaded for one request: its raw document, status and cooled URIs. */
export interface LedgerView {
  key: string;
  status: 'new' | 'ok';
  data: Record<string, unknown>;
  cooled: string[];
}

/**
 * Cross-turn dedup (docs/contract.md#dedup-ledger) over the ledger store; read or write failures only degrade dedup.
 */
@Injectable()
export class DedupLedgerService {
  private readonly logger = new Logger(DedupLedgerService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LEDGER_STORE) private readonly store: LedgerStore,
  ) {}

  keyFor(caller: Identity, sessionId: string): string {
    return ledgerKey(this.config.queues.prefix, caller.accountId, caller.userId, sessionId);
  }

  async load(caller: Identity, sessionId: string, clock: number, dedupTurns: number): Promise<LedgerView> {
    const key = this.keyFor(caller, sessionId);
    const raw = await this.store.read(key).catch((err: Error) => {
      this.logger.warn(`ledger read failed (${err.message}); treating as new`);
      return null;
    });
    const { status, data } = parseLedger(raw);
    return { key, status, data, cooled: cooledUris(data, clock, dedupTurns) };
  }

  /** Records served entries at `clock`, pruning old records; returns the resulting status. */
  async record(
    view: LedgerView,
    served: { uri: string; detail: string }[],
    clock: number,
    dedupTurns: number,
  ): Promise<DedupStatus> {
    const doc = recordServed(view.data, served, clock, dedupTurns);
    try {
      await this.store.write(view.key, JSON.stringify(doc), this.config.ledger.ttlSeconds);
      return view.status;
    } catch (err) {
      this.logger.warn(`ledger write failed: ${(err as Error).message}`);
      return 'write_failed';
    }
  }

  /** The stored ledger JSON of a session (GET …/recall-log), or null. */
  async read(caller: Identity, sessionId: string): Promise<unknown> {
    const raw = await this.store.read(this.keyFor(caller, sessionId));
    return raw === null ? null : parseLedger(raw).data;
  }

  /**
   * Deletes the ledgers of a session, of a user or of a whole account, so a re-created session, user
   * or account starts with none. Fails with UNAVAILABLE when Redis does: callers delete the ledgers
   * before the store rows, so a failure leaves both in place and the deletion can be retried.
   */
  async forget(scope: { accountId: string; userId?: string; sessionId?: string }): Promise<void> {
    const { prefix } = this.config.queues;
    const target =
      scope.userId !== undefined && scope.sessionId !== undefined
        ? { key: ledgerKey(prefix, scope.accountId, scope.userId, scope.sessionId) }
        : { keyPrefix: ledgerScopePrefix(prefix, scope.accountId, scope.userId) };
    try {
      await this.store.remove(target);
    } catch (err) {
      this.logger.warn(`ledger delete failed: ${(err as Error).message}`);
      throw new KernelError(
        KernelErrorCode.Unavailable,
        'Could not delete the dedup ledgers (Redis unavailable); nothing was deleted, retry later',
      );
    }
  }
}

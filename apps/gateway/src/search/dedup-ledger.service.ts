import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { cooledUris, DedupStatus, Identity, LedgerStore, parseLedger, recordServed } from '@app/kernel';
import { LEDGER_STORE, ledgerKey } from '@app/queue';

/** The ledger as loaded for one request: its raw document, status and cooled URIs. */
export interface LedgerView {
  key: string;
  status: 'new' | 'ok';
  data: Record<string, unknown>;
  cooled: string[];
}

/** Cross-turn dedup (§9) over the ledger store; read or write failures only degrade dedup. */
@Injectable()
export class DedupLedgerService {
  private readonly logger = new Logger(DedupLedgerService.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig, @Inject(LEDGER_STORE) private readonly store: LedgerStore) {}

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
  async record(view: LedgerView, served: { uri: string; detail: string }[], clock: number, dedupTurns: number): Promise<DedupStatus> {
    const doc = recordServed(view.data, served, clock, dedupTurns);
    try {
      await this.store.write(view.key, JSON.stringify(doc), this.config.ledger.ttlSeconds);
      return view.status;
    } catch (err) {
      this.logger.warn(`ledger write failed: ${(err as Error).message}`);
      return 'write_failed';
    }
  }

  /** Drops a deleted session's ledger; a Redis failure is logged (the ledger expires by its TTL anyway). */
  async remove(caller: Identity, sessionId: string): Promise<void> {
    await this.store.remove(this.keyFor(caller, sessionId)).catch((err: Error) => this.logger.warn(`ledger delete failed: ${err.message}`));
  }

  /** The stored ledger JSON of a session (GET …/recall-log), or null. */
  async read(caller: Identity, sessionId: string): Promise<unknown> {
    const raw = await this.store.read(this.keyFor(caller, sessionId));
    return raw === null ? null : parseLedger(raw).data;
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  ACCOUNT_LIMITS,
  Identity,
  ImportOrder,
  importProblem,
  invalidArgument,
  KernelError,
  readImportLine,
} from '@app/kernel';
import { JobBus, scheduleSessionIdle } from '@app/queue';
import { AccountImportRepository, AuditRepository, IdentityRepository, ImportClaim } from '@app/store';
import { IndexDispatchService } from '../content/index-dispatch.service';
import { MetricsService } from '../system/metrics.service';
import { adminAudit, requireRoot } from './admin-access';
import { GatewaySlots } from './gateway-slots';
import { ACCOUNT_ID, ACCOUNT_ID_MESSAGE } from './dto/admin.dto';
import { IdleSession, ImportOutcome, ImportWriter } from './import-writer';
import { ndjsonLines } from './ndjson-lines';
import { bodyTooSlow, idleBounded } from '../http/slow-clients';

/**
 * Imports an account export into a new account (docs/limits-and-security.md, "Importing an account"):
 * the body is read line by line as it arrives (`ndjsonLines`), each line checked (kernel `readImportLine`,
 * `ImportOrder`) before `ImportWriter` writes it in batches, so memory holds one batch whatever the
 * export's size. The account stays suspended until the end line is in; an import that fails at any line
 * is removed whole (the account deleted, recorded in the trail) and the answer names the line.
 */
@Injectable()
export class AccountImportService {
  private readonly logger = new Logger(AccountImportService.name);
  private readonly slots: GatewaySlots;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly imports: AccountImportRepository,
    private readonly identities: IdentityRepository,
    private readonly audits: AuditRepository,
    private readonly dispatcher: IndexDispatchService,
    @Inject(JobBus) private readonly bus: JobBus,
    private readonly metrics: MetricsService,
  ) {
    this.slots = new GatewaySlots('imports', config.store.import.maxConcurrent, 'MUNINN_IMPORT_MAX_CONCURRENT');
  }

  async importAccount(
    caller: Identity,
    accountId: string,
    body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  ): Promise<ImportOutcome> {
    requireRoot(this.config, caller);
    if (!ACCOUNT_ID.test(accountId) || accountId.startsWith('_'))
      throw invalidArgument(`account_id ${ACCOUNT_ID_MESSAGE} and not start with "_"`, { field: 'account_id' });
    // Each import holds up to a line and a batch in memory: a restore script running many at once must not
    // exhaust the gateway every tenant shares.
    const release = this.slots.take();
    try {
      return await this.run(caller, accountId, body);
    } finally {
      release();
    }
  }

  private async run(
    caller: Identity,
    accountId: string,
    body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  ): Promise<ImportOutcome> {
    const { limits, store } = this.config;
    const bounds = {
      // The line's own bound is the most users any account may be allowed (an account's max_users may be
      // above the deployment's); ImportWriter holds the export to the account's own quota.
      maxUsers: ACCOUNT_LIMITS.max_users.max,
      maxTags: limits.tagsMaxItems,
      maxTagChars: limits.tagMaxChars,
      maxDepth: limits.bodyMaxDepth,
      uri: { maxChars: limits.uriMaxChars, maxDepth: limits.uriMaxDepth, maxSegmentChars: limits.uriMaxSegmentChars },
      maxDescriptionChars: limits.descriptionMaxChars,
    };
    const order = new ImportOrder();
    const quotas = {
      ...store.quota,
      maxUsageRecords: this.config.sessions.maxUsageRecords,
      maxToolResults: this.config.sessions.toolOutputs.maxPerSession,
    };
    const writer = new ImportWriter(this.imports, this.dispatcher, accountId, quotas, (users) =>
      adminAudit(this.audits, caller, 'account.import', accountId, null, { users }),
    );
    let last = 0;
    // The import's sign of life, with how far it got (GET …/accounts/{id} shows it): without it (the
    // gateway stopped) any gateway removes the account.
    const progress = () => {
      const { nodes, sessions, archives, messages } = writer.outcome;
      return { lines: last, nodes, sessions, archives, messages };
    };
    const heartbeat = setInterval(
      () =>
        writer.claim &&
        void this.imports
          .heartbeat(writer.claim, progress())
          .catch((err: Error) => this.logger.warn(`import heartbeat of ${accountId} failed: ${err.message}`)),
      Math.ceil(store.import.abandonMs / 5),
    );
    heartbeat.unref();
    try {
      // A restore script that hangs with its connection open must not hold an import slot (and a suspended
      // account) for good: a body silent for MUNINN_IMPORT_IDLE_S ends the import (408), removed whole.
      const idleS = store.import.idleMs / 1000;
      const arriving = idleBounded(body, store.import.idleMs, () =>
        bodyTooSlow('import_idle', `The import's body sent nothing for ${idleS} s (MUNINN_IMPORT_IDLE_S)`, {
          idle_s: idleS,
          line: last,
        }),
      );
      for await (const { line, text, bytes } of ndjsonLines(arriving, store.import)) {
        last = line;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw importProblem(line, 'is not JSON');
        }
        const l = readImportLine(value, line, bounds);
        order.accept(l, line);
        await writer.take(l, line, bytes);
      }
      order.assertEnded(last);
      if (writer.claim) await this.imports.finish(writer.claim);
      await this.scheduleIdle(accountId, writer.idle);
      this.metrics.imported('imported');
      return writer.outcome;
    } catch (err) {
      // Not once the account is no longer the import's (deleted meanwhile; perhaps made again since).
      if (writer.claim && !isCancelled(err)) await this.removeFailed(caller, writer.claim, err);
      this.metrics.imported('refused');
      throw err;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Imported sessions with live messages and an idle policy get their idle check, as a message write
   * schedules it (docs/sessions.md "Automatic commit"); the check waits out what is left of the idle time.
   * One that cannot be enqueued is asked for by the extractor's idle relay: the session's due time was stored
   * with its messages.
   */
  private async scheduleIdle(accountId: string, sessions: IdleSession[]): Promise<void> {
    for (const s of sessions) {
      const job = { accountId, userId: s.userId, sessionId: s.sessionId };
      await scheduleSessionIdle(this.bus, job, s.delayMs).catch((err: Error) =>
        this.logger.warn(`idle commit of ${s.sessionId} not scheduled: ${err.message}`),
      );
    }
  }

  /** A failed import leaves nothing behind: the account it made is deleted, and the trail says why. */
  private async removeFailed(caller: Identity, claim: ImportClaim, err: unknown): Promise<void> {
    const { accountId } = claim;
    const reason = `import failed: ${(err as Error).message}`.slice(0, 500);
    try {
      await this.identities.deleteAccount(
        accountId,
        adminAudit(this.audits, caller, 'account.delete', accountId, null, { reason }),
        { importSince: claim.since },
      );
    } catch (e) {
      // Left suspended ("import in progress"), no key of it served: its heartbeat stops with this request, so
      // the abandoned-import sweep removes it (ImportSweepService).
      this.logger.error(`a failed import of ${accountId} could not be removed: ${(e as Error).message}`);
    }
  }
}

/** The import's account was deleted while it ran: nothing of it is the import's to remove. */
function isCancelled(err: unknown): boolean {
  return err instanceof KernelError && err.details?.reason === 'import_cancelled';
}

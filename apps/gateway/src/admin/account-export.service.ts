import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { AccountExportRepository, AuditRepository, ExportLine } from '@app/store';
import { adminAudit, requireRoot } from './admin-access';
import { GatewaySlots } from './gateway-slots';

/** An export under way: its lines, and `release` for when its response is over (idempotent). */
export interface RunningExport {
  lines: AsyncGenerator<ExportLine>;
  release: () => void;
}

/**
 * Exports an account (docs/limits-and-security.md, "Exporting an account"), root only: the export holds
 * every user's private memories. On PostgreSQL an export is one snapshot transaction holding a pooled
 * connection for as long as its client reads, so a gateway runs at most `MUNINN_EXPORT_MAX_CONCURRENT`
 * at once (429 beyond, `details.limit: exports`): a script exporting every tenant at once cannot take
 * the connections every other request needs.
 */
@Injectable()
export class AccountExportService {
  private readonly slots: GatewaySlots;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly exports: AccountExportRepository,
    private readonly audits: AuditRepository,
  ) {
    this.slots = new GatewaySlots('exports', config.store.exportMaxConcurrent, 'MUNINN_EXPORT_MAX_CONCURRENT');
  }

  /**
   * The account's lines, or one user's (`userId`: their space and sessions), read page by page as the
   * caller consumes them. The export is recorded in the audit trail before its first line; when it cannot
   * be, nothing is exported.
   */
  async open(caller: Identity, accountId: string, userId: string | null = null): Promise<RunningExport> {
    requireRoot(this.config, caller);
    const release = this.slots.take();
    try {
      const lines = await this.exports.open(accountId, userId);
      if (!lines) throw notFound(accountId, userId);
      const action = userId === null ? 'account.export' : 'user.export';
      await this.audits.record(adminAudit(this.audits, caller, action, accountId, userId));
      return { lines: releasing(lines, release), release };
    } catch (err) {
      release();
      throw err;
    }
  }
}

function notFound(accountId: string, userId: string | null): KernelError {
  return userId === null
    ? new KernelError(KernelErrorCode.NotFound, `Account not found: ${accountId}`, { account_id: accountId })
    : new KernelError(KernelErrorCode.NotFound, `User not found: ${accountId}/${userId}`, {
        account_id: accountId,
        user_id: userId,
      });
}

/**
 * The lines, freeing the slot as soon as the last one is read (before the response has reached its
 * client, so a client's next export finds it free); `release` on the stream's close covers the rest.
 */
async function* releasing<T>(lines: AsyncGenerator<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* lines;
  } finally {
    release();
  }
}

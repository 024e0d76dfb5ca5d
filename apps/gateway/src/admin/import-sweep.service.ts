import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { PeriodicRelay } from '@app/queue';
import { AccountImportRepository, AuditRepository, IdentityRepository } from '@app/store';
import { MetricsService } from '../system/metrics.service';

/** Accounts removed per pass at most: each removal deletes a whole (partial) tenant. */
const PER_PASS = 20;

/**
 * Removes imports abandoned by their gateway (docs/limits-and-security.md, "Importing an account"): an
 * account still suspended by its import whose heartbeat is older than `MUNINN_IMPORT_ABANDON_S` is deleted,
 * the trail recording `account.delete` by the deployment (`role: system`) with the reason. Every gateway
 * sweeps; the removal re-checks the heartbeat in its own statement, so an import that came back to life,
 * or one another gateway removed first, is left alone.
 */
@Injectable()
export class ImportSweepService extends PeriodicRelay {
  private readonly abandonMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly imports: AccountImportRepository,
    private readonly identities: IdentityRepository,
    private readonly audits: AuditRepository,
    private readonly metrics: MetricsService,
  ) {
    const abandonMs = config.store.import.abandonMs;
    super('abandoned import sweep', Math.min(60_000, Math.ceil(abandonMs / 2)));
    this.abandonMs = abandonMs;
  }

  protected async relay(): Promise<void> {
    for (const accountId of await this.imports.abandoned(this.abandonMs, PER_PASS)) {
      if (!this.active) return;
      const audit = this.audits.sink({
        action: 'account.delete',
        accountId,
        userId: null,
        actor: { accountId: null, userId: null, role: 'system' },
        details: { reason: `import abandoned: no heartbeat from its gateway for ${this.abandonMs / 1000} s` },
        requestId: null,
      });
      try {
        await this.identities.deleteAccount(accountId, audit, { abandonedImportMs: this.abandonMs });
        this.metrics.imported('abandoned');
        this.logger.warn(`removed the abandoned import of account ${accountId}`);
      } catch (err) {
        if (!(err instanceof KernelError && err.code === KernelErrorCode.NotFound)) throw err;
      }
    }
  }
}

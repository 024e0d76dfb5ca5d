import { Logger } from '@nestjs/common';
import { AccountLimitOverrides, AccountLimitValues, effectiveLimits } from '@app/kernel';
import { AccountReadings } from './account-readings';
import { AuditSink } from './repositories/audit.repository';
import { IdentityRepository } from './repositories/identity.repository';

/** How long one process answers from an account's limits as it last read them. */
export const ACCOUNT_LIMITS_TTL_MS = 5000;

/**
 * The limits that apply to each account (docs/limits-and-security.md, "Per-account limits"): the
 * deployment's, with the account's own values in their place. Read from the store at most once per
 * `ACCOUNT_LIMITS_TTL_MS` per account and process, so a request costs no statement; a change is seen at
 * once by the process that made it, by the other gateways as soon as the change's message reaches them
 * (`forget`, the gateway's limits channel), and by every process within that time at worst. The storage
 * quota does not come from here: the write's own transaction reads it exactly.
 */
export class AccountLimitsService {
  private readonly logger = new Logger(AccountLimitsService.name);
  private readonly own: AccountReadings<AccountLimitOverrides>;

  constructor(
    private readonly identities: IdentityRepository,
    readonly defaults: AccountLimitValues,
  ) {
    this.own = new AccountReadings(ACCOUNT_LIMITS_TTL_MS, (a) => identities.accountLimits(a));
  }

  /**
   * The account's limits. An unreadable row gives the deployment's: a store blip must not refuse every
   * request, and the storage quota, the one limit that guards the store, is read inside each write.
   */
  async of(accountId: string): Promise<AccountLimitValues> {
    return (await this.applied(accountId)).limits;
  }

  /** The account's limits and which of them are its own (a refusal names its source), from the same reading. */
  async applied(accountId: string): Promise<{ limits: AccountLimitValues; own: AccountLimitOverrides }> {
    try {
      const own = await this.own.get(accountId);
      return { limits: effectiveLimits(this.defaults, own), own };
    } catch (err) {
      this.logger.warn(`limits of an account unreadable, the deployment's apply: ${(err as Error).message}`);
      return { limits: this.defaults, own: {} };
    }
  }

  /** The account's own values (uncached; 404 for no account is the caller's: this reads none as `{}`). */
  ownOf(accountId: string): Promise<AccountLimitOverrides> {
    return this.identities.accountLimits(accountId);
  }

  /** Forgets this process's reading of the account's limits (they changed elsewhere). */
  forget(accountId: string): void {
    this.own.forget(accountId);
  }

  /** Forgets every reading (a change may have been missed). */
  forgetAll(): void {
    this.own.clear();
  }

  /**
   * Replaces the account's own values (404 for an unknown account), recording the change in `audit` in
   * the same transaction, and forgets this process's reading.
   */
  async set(accountId: string, own: AccountLimitOverrides, audit: AuditSink): Promise<AccountLimitOverrides> {
    const stored = await this.identities.setAccountLimits(accountId, own, audit);
    this.own.forget(accountId);
    return stored;
  }
}

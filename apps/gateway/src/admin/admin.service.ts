import { LimitsChannelService } from '../http/limits-channel.service';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  ACCOUNT_LIMIT_NAMES,
  AccountLimitOverrides,
  AuditAction,
  effectiveLimits,
  Identity,
  invalidArgument,
  readLimitOverrides,
} from '@app/kernel';
import { AccountLimitsService, AuditRepository, AuditSink, IdentityRepository, UserRole } from '@app/store';
import { AccountLimitsDto, AccountSuspensionDto } from './dto/admin.dto';
import { IdentityCacheService } from '../auth/identity-cache.service';
import { DedupLedgerService } from '../ledger/dedup-ledger.service';
import { AccountUsageService } from '../system/account-usage.service';
import { adminAudit, requireManager, requireRoot } from './admin-access';

/** Account and user administration, with the reference's role rules. */
@Injectable()
export class AdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly identities: IdentityRepository,
    private readonly ledgers: DedupLedgerService,
    private readonly keys: IdentityCacheService,
    private readonly limits: AccountLimitsService,
    private readonly limitsChannel: LimitsChannelService,
    private readonly audits: AuditRepository,
    private readonly usage: AccountUsageService,
  ) {}

  async createAccount(caller: Identity, accountId: string, adminUserId: string, seed?: string) {
    this.requireRoot(caller);
    return this.identities.createAccount(
      accountId,
      adminUserId,
      this.checkedSeed(seed),
      this.audit(caller, 'account.create', accountId, adminUserId, { admin_user_id: adminUserId, seeded: !!seed }),
    );
  }

  /** A page of the accounts in id order (root only; docs/limits-and-security.md, "Keys and roles"). */
  listAccounts(caller: Identity, limit: number, after: string | null) {
    this.requireRoot(caller);
    return this.identities.listAccounts(limit, after);
  }

  /** One account: when it was made, its users, whether it is suspended (root, or the account's admin). */
  getAccount(caller: Identity, accountId: string) {
    this.requireManager(caller, accountId);
    return this.identities.getAccount(accountId);
  }

  async deleteAccount(caller: Identity, accountId: string) {
    this.requireRoot(caller);
    await this.identities.getAccount(accountId);
    await this.ledgers.forget({ accountId });
    await this.identities.deleteAccount(accountId, this.audit(caller, 'account.delete', accountId));
    await this.keys.invalidate({ accountId });
    return { deleted: true };
  }

  async createUser(caller: Identity, accountId: string, userId: string, role: UserRole, seed?: string) {
    this.requireManager(caller, accountId);
    const r = await this.identities.createUser(
      accountId,
      userId,
      role,
      this.checkedSeed(seed),
      this.audit(caller, 'user.create', accountId, userId, { role, seeded: !!seed }),
    );
    return { account_id: r.account_id, user_id: r.user_id, role: r.role, user_key: r.user_key };
  }

  async listUsers(caller: Identity, accountId: string) {
    this.requireManager(caller, accountId);
    return (await this.identities.listUsers(accountId)).map((u) => ({
      user_id: u.user_id,
      role: u.role,
      created_at: u.created_at,
    }));
  }

  async getUser(caller: Identity, accountId: string, userId: string) {
    this.requireManager(caller, accountId);
    const u = await this.identities.getUser(accountId, userId);
    const keys = await this.identities.userKeys(accountId, userId);
    return { account_id: u.account_id, user_id: u.user_id, role: u.role, created_at: u.created_at, keys };
  }

  /** Stops the key a rotation kept for the user, now: their agents have all moved to the new one. */
  async revokePreviousKey(caller: Identity, accountId: string, userId: string) {
    this.requireManager(caller, accountId);
    await this.identities.getUser(accountId, userId);
    await this.identities.revokePreviousKey(
      accountId,
      userId,
      this.audit(caller, 'user.previous_key_revoke', accountId, userId),
    );
    await this.keys.invalidate({ accountId, userId });
    return { account_id: accountId, user_id: userId, previous_key_revoked: true };
  }

  async deleteUser(caller: Identity, accountId: string, userId: string) {
    this.requireManager(caller, accountId);
    await this.identities.getUser(accountId, userId);
    await this.ledgers.forget({ accountId, userId });
    await this.identities.deleteUser(accountId, userId, this.audit(caller, 'user.delete', accountId, userId));
    await this.keys.invalidate({ accountId, userId });
    return { account_id: accountId, user_id: userId, deleted: true };
  }

  async setRole(caller: Identity, accountId: string, userId: string, role: UserRole) {
    this.requireManager(caller, accountId);
    const u = await this.identities.setRole(
      accountId,
      userId,
      role,
      this.audit(caller, 'user.role', accountId, userId, { role }),
    );
    await this.keys.invalidate({ accountId, userId });
    return { account_id: u.account_id, user_id: u.user_id, role: u.role };
  }

  async rotateKey(
    caller: Identity,
    accountId: string,
    userId: string,
    seed: string | undefined,
    previousValidS: number,
  ) {
    this.requireManager(caller, accountId);
    const details = { seeded: !!seed, ...(previousValidS > 0 ? { previous_key_valid_s: previousValidS } : {}) };
    const r = await this.identities.rotateKey(
      accountId,
      userId,
      this.checkedSeed(seed),
      previousValidS,
      this.audit(caller, 'user.key', accountId, userId, details),
    );
    await this.keys.invalidate({ accountId, userId });
    // The contract's answer is `{user_key}`; the kept key's end only when one was asked to be kept.
    return previousValidS > 0
      ? { user_key: r.user_key, previous_key_expires_at: r.previous_key_expires_at }
      : { user_key: r.user_key };
  }

  /** The account's limits and which of them are its own (root, or the account's admin). */
  async accountLimits(caller: Identity, accountId: string) {
    this.requireManager(caller, accountId);
    await this.identities.getAccount(accountId);
    return this.limitsReport(accountId, await this.limits.ownOf(accountId));
  }

  /**
   * Replaces the account's own limits (root only: an account must not raise its own); a limit left out
   * or null takes the deployment's value again. Seen at once by this gateway, within
   * ACCOUNT_LIMITS_TTL_MS by the other processes, at once by the other gateways through their limits
   * channel (docs/limits-and-security.md, "Per-account limits").
   */
  async setAccountLimits(caller: Identity, accountId: string, body: AccountLimitsDto) {
    this.requireRoot(caller);
    const own: AccountLimitOverrides = {};
    for (const name of ACCOUNT_LIMIT_NAMES) {
      const v = body[name];
      if (v !== undefined && v !== null) own[name] = v;
    }
    // The event names the values as stored: the store keeps what readLimitOverrides keeps of them.
    const stored = await this.limits.set(
      accountId,
      own,
      this.audit(caller, 'account.limits', accountId, null, { own: readLimitOverrides(own) }),
    );
    await this.limitsChannel.announce(accountId);
    return this.limitsReport(accountId, stored);
  }

  /**
   * Suspends or resumes the account (root only: an account's admin must not lift its own suspension).
   * Its keys are dropped from every gateway's key cache, so the next request of the account is refused
   * (docs/limits-and-security.md, "Suspending an account").
   */
  async setSuspension(caller: Identity, accountId: string, body: AccountSuspensionDto) {
    this.requireRoot(caller);
    if (!body.suspended && body.reason !== undefined)
      throw invalidArgument('reason is given only with suspended: true', { field: 'reason' });
    const reason = body.suspended ? (body.reason ?? '').trim() : null;
    const action = body.suspended ? 'account.suspend' : 'account.resume';
    const account = await this.identities.setSuspension(
      accountId,
      reason,
      this.audit(caller, action, accountId, null, body.suspended ? { reason } : {}),
      this.config.store.import.abandonMs,
    );
    await this.keys.invalidate({ accountId });
    return { account_id: accountId, suspended: account.suspended };
  }

  /**
   * What the account holds and has spent against its bounds as they apply to it (root, or the account's
   * admin): the figures `system/status` shows the account's own callers, and its users.
   */
  async accountUsage(caller: Identity, accountId: string) {
    this.requireManager(caller, accountId);
    const account = await this.identities.getAccount(accountId);
    const { usage, limits } = await this.usage.report(accountId);
    return { account_id: accountId, users: { users: account.user_count, max_users: limits.max_users }, ...usage };
  }

  /** A page of the account's audit trail, newest first (root, or the account's admin). */
  async auditTrail(caller: Identity, accountId: string, limit: number, before: number | null) {
    this.requireManager(caller, accountId);
    // The operator (root) reads the id's whole record; the account's admin, its own account's.
    const events = await this.audits.list(accountId, limit, before, caller.role !== 'root');
    return { events, next_before: events.length === limit ? events[events.length - 1].id : null };
  }

  private audit(
    caller: Identity,
    action: AuditAction,
    accountId: string,
    userId: string | null = null,
    details: Record<string, unknown> = {},
  ): AuditSink {
    return adminAudit(this.audits, caller, action, accountId, userId, details);
  }

  private limitsReport(accountId: string, own: AccountLimitOverrides) {
    return { account_id: accountId, own, limits: effectiveLimits(this.limits.defaults, own) };
  }

  /** A seed short enough to guess would make its key guessable by anyone holding the server secret's output. */
  private checkedSeed(seed: string | undefined): string | undefined {
    const min = this.config.auth.seedMinLength;
    if (seed !== undefined && [...seed].length < min) {
      throw invalidArgument(`seed must be at least ${min} characters`, { field: 'seed', limit: min });
    }
    return seed;
  }

  private requireRoot(caller: Identity) {
    requireRoot(this.config, caller);
  }

  private requireManager(caller: Identity, accountId: string) {
    requireManager(this.config, caller, accountId);
  }
}

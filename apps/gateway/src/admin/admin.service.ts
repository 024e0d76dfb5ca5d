import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, invalidArgument, KernelError, KernelErrorCode } from '@app/kernel';
import { IdentityRepository, UserRole } from '@app/store';
import { IdentityCacheService } from '../auth/identity-cache.service';
import { DedupLedgerService } from '../ledger/dedup-ledger.service';

/** Account and user administration, with the reference's role rules. */
@Injectable()
export class AdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly identities: IdentityRepository,
    private readonly ledgers: DedupLedgerService,
    private readonly keys: IdentityCacheService,
  ) {}

  createAccount(caller: Identity, accountId: string, adminUserId: string, seed?: string) {
    this.requireRoot(caller);
    return this.identities.createAccount(accountId, adminUserId, this.checkedSeed(seed));
  }

  listAccounts(caller: Identity) {
    this.requireRoot(caller);
    return this.identities.listAccounts();
  }

  async deleteAccount(caller: Identity, accountId: string) {
    this.requireRoot(caller);
    await this.identities.getAccount(accountId);
    await this.ledgers.forget({ accountId });
    await this.identities.deleteAccount(accountId);
    await this.keys.invalidate({ accountId });
    return { deleted: true };
  }

  async createUser(caller: Identity, accountId: string, userId: string, role: UserRole, seed?: string) {
    this.requireManager(caller, accountId);
    const r = await this.identities.createUser(accountId, userId, role, this.checkedSeed(seed));
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
    return { account_id: u.account_id, user_id: u.user_id, role: u.role, created_at: u.created_at };
  }

  async deleteUser(caller: Identity, accountId: string, userId: string) {
    this.requireManager(caller, accountId);
    await this.identities.getUser(accountId, userId);
    await this.ledgers.forget({ accountId, userId });
    await this.identities.deleteUser(accountId, userId);
    await this.keys.invalidate({ accountId, userId });
    return { account_id: accountId, user_id: userId, deleted: true };
  }

  async setRole(caller: Identity, accountId: string, userId: string, role: UserRole) {
    this.requireManager(caller, accountId);
    const u = await this.identities.setRole(accountId, userId, role);
    await this.keys.invalidate({ accountId, userId });
    return { account_id: u.account_id, user_id: u.user_id, role: u.role };
  }

  async rotateKey(caller: Identity, accountId: string, userId: string, seed?: string) {
    this.requireManager(caller, accountId);
    const r = await this.identities.rotateKey(accountId, userId, this.checkedSeed(seed));
    await this.keys.invalidate({ accountId, userId });
    return { user_key: r.user_key };
  }

  /** A seed short enough to guess would make its key guessable by anyone holding the server secret's output. */
  private checkedSeed(seed: string | undefined): string | undefined {
    const min = this.config.auth.seedMinLength;
    if (seed !== undefined && [...seed].length < min) {
      throw invalidArgument(`seed must be at least ${min} characters`, { field: 'seed', limit: min });
    }
    return seed;
  }

  private requireApiKeyMode() {
    if (this.config.auth.mode !== 'api_key') {
      throw new KernelError(
        KernelErrorCode.PermissionDenied,
        'Admin API requires api_key mode with root_api_key configured (set MUNINN_ROOT_API_KEY).',
      );
    }
  }

  private requireRoot(caller: Identity) {
    this.requireApiKeyMode();
    if (caller.role !== 'root') throw new KernelError(KernelErrorCode.PermissionDenied, 'Requires role: root');
  }

  private requireManager(caller: Identity, accountId: string) {
    this.requireApiKeyMode();
    if (caller.role === 'root') return;
    if (caller.role !== 'admin') throw new KernelError(KernelErrorCode.PermissionDenied, 'Requires role: root, admin');
    if (caller.accountId !== accountId) {
      throw new KernelError(KernelErrorCode.PermissionDenied, `ADMIN can only manage account: ${caller.accountId}`);
    }
  }
}

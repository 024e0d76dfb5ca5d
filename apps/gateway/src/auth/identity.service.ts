import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  accountSuspended,
  Identity,
  KernelError,
  KernelErrorCode,
  validateActorPeer,
  validateHeaderId,
} from '@app/kernel';
import { IdentityRepository, UploadTokenRepository } from '@app/store';
import { invalidUploadToken, UPLOAD_ROUTE } from '../http/upload-route';
import { readsActorPeer } from './actor-peer-paths';
import { IdentityCacheService } from './identity-cache.service';
import { isRootPath } from './root-paths';

export interface AuthInput {
  path: string;
  /** The `token` query parameter of the upload route (docs/fs-and-mcp.md, "add_resource"). */
  uploadToken?: string;
  remoteAddress: string | undefined;
  header(name: string): string | undefined;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** Resolves who is calling, per the contract's auth modes (api_key with a root key, else dev). */
@Injectable()
export class IdentityService {
  private readonly rootKey: Buffer | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly identities: IdentityRepository,
    private readonly cache: IdentityCacheService,
    private readonly uploads: UploadTokenRepository,
  ) {
    this.rootKey = config.auth.rootApiKey ? Buffer.from(config.auth.rootApiKey, 'utf8') : null;
  }

  async resolve(input: AuthInput): Promise<Identity> {
    const actorPeerId = readsActorPeer(input.path)
      ? validateActorPeer(input.header('x-openviking-actor-peer'), this.config.limits.idMaxChars)
      : null;
    if (!this.rootKey) assertLoopbackPeer(input);
    // A one-shot upload token stands for the caller who minted it (as that user is now), actor peer included.
    if (input.path === UPLOAD_ROUTE && input.uploadToken !== undefined) return this.uploadIdentity(input.uploadToken);
    if (!this.rootKey) return this.devIdentity(input, actorPeerId);
    const key = presentedKey(input);
    if (!key) throw new KernelError(KernelErrorCode.Unauthenticated, 'Missing API Key when resolving identity.');
    if (this.isRootKey(key)) {
      if (!isRootPath(input.path)) {
        throw new KernelError(
          KernelErrorCode.PermissionDenied,
          'ROOT API keys cannot access tenant-scoped data APIs in api_key mode; use a user or admin key of the account.',
        );
      }
      return { accountId: 'default', userId: 'default', role: 'root', actorPeerId };
    }
    const { suspended, ...owner } = this.cache.get(key) ?? (await this.lookup(key));
    if (suspended) throw accountSuspended(owner.accountId, suspended);
    return { ...owner, actorPeerId };
  }

  /** The store's answer for a user key, cached; unknown keys are not cached (they are rate-limited). */
  private async lookup(key: string) {
    const mark = this.cache.mark();
    const user = await this.identities.resolveKey(key);
    if (!user) throw new KernelError(KernelErrorCode.Unauthenticated, 'Invalid API Key');
    const owner = { accountId: user.account_id, userId: user.user_id, role: user.role, suspended: user.suspended };
    this.cache.set(key, owner, mark, user.key_expires_at);
    return owner;
  }

  private async uploadIdentity(token: string): Promise<Identity> {
    const grant = await this.uploads.peek(token);
    if (!grant) throw invalidUploadToken();
    return grant.identity;
  }

  private devIdentity(input: AuthInput, actorPeerId: string | null): Identity {
    const max = this.config.limits.idMaxChars;
    const accountId = validateHeaderId(input.header('x-openviking-account'), 'account_id', max) ?? 'default';
    const userId = validateHeaderId(input.header('x-openviking-user'), 'user_id', max) ?? 'default';
    return { accountId, userId, role: 'root', actorPeerId };
  }

  private isRootKey(key: string): boolean {
    const k = Buffer.from(key, 'utf8');
    return this.rootKey !== null && k.length === this.rootKey.length && timingSafeEqual(k, this.rootKey);
  }
}

/** Dev mode serves loopback peers only (upload links included). */
function assertLoopbackPeer(input: AuthInput): void {
  if (!input.remoteAddress || !LOOPBACK.test(input.remoteAddress)) {
    throw new KernelError(
      KernelErrorCode.PermissionDenied,
      'Dev mode serves localhost only; set MUNINN_ROOT_API_KEY to accept remote clients with API keys.',
    );
  }
}

function presentedKey(input: AuthInput): string | null {
  const x = input.header('x-api-key')?.trim();
  if (x) return x;
  const auth = input.header('authorization')?.trim();
  // The scheme, then the rest trimmed: no pattern runs over the (attacker-sized) token itself.
  if (!auth || !/^Bearer\s/i.test(auth)) return null;
  return auth.slice('Bearer'.length).trim() || null;
}

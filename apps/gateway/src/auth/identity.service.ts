import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode, validateActorPeer } from '@app/kernel';
import { hashKey, IdentityRepository } from '@app/store';
import { KeyCacheService } from './key-cache.service';
import { isRootPath } from './root-paths';

export interface AuthInput {
  path: string;
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
    private readonly keyCache: KeyCacheService,
  ) {
    this.rootKey = config.auth.rootApiKey ? Buffer.from(config.auth.rootApiKey, 'utf8') : null;
  }

  async resolve(input: AuthInput): Promise<Identity> {
    const actorPeerId = validateActorPeer(input.header('x-openviking-actor-peer'));
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
    const user = await this.keyCache.resolve(hashKey(key), () => this.identities.resolveKey(key));
    if (!user) throw new KernelError(KernelErrorCode.Unauthenticated, 'Invalid API Key');
    return { accountId: user.account_id, userId: user.user_id, role: user.role, actorPeerId };
  }

  private devIdentity(input: AuthInput, actorPeerId: string | null): Identity {
    if (!input.remoteAddress || !LOOPBACK.test(input.remoteAddress)) {
      throw new KernelError(
        KernelErrorCode.PermissionDenied,
        'Dev mode serves localhost only; set MUNINN_ROOT_API_KEY to accept remote clients with API keys.',
      );
    }
    const accountId = input.header('x-openviking-account')?.trim() || 'default';
    const userId = input.header('x-openviking-user')?.trim() || 'default';
    return { accountId, userId, role: 'root', actorPeerId };
  }

  private isRootKey(key: string): boolean {
    const k = Buffer.from(key, 'utf8');
    return this.rootKey !== null && k.length === this.rootKey.length && timingSafeEqual(k, this.rootKey);
  }
}

function presentedKey(input: AuthInput): string | null {
  const x = input.header('x-api-key')?.trim();
  if (x) return x;
  const auth = input.header('authorization')?.trim();
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return m ? m[1].trim() : null;
}

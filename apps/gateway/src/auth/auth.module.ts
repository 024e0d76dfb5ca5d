import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { IdentityCacheService } from './identity-cache.service';
import { IdentityService } from './identity.service';

/**
 * API-key identities and the global guard. Exports IdentityService (system routes check root keys
 * with it) and the key cache (the admin routes invalidate it).
 */
@Module({
  providers: [IdentityService, IdentityCacheService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [IdentityService, IdentityCacheService],
})
export class AuthModule {}

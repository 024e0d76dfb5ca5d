import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { IdentityService } from './identity.service';

/** API-key identities and the global guard; exports IdentityService (system routes check root keys with it). */
@Module({
  providers: [IdentityService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [IdentityService],
})
export class AuthModule {}

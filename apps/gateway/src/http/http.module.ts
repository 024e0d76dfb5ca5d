import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AdmissionService } from './admission.service';
import { BacklogService } from './backlog.service';
import { EnvelopeInterceptor } from './envelope.interceptor';
import { LimitsChannelService } from './limits-channel.service';
import { TenantWriterInterceptor } from './tenant-writer.interceptor';

/**
 * The HTTP cross-cuts that are Nest providers: per-caller admission (rate and concurrency), the per-account
 * backlog bounds, the tenant writer a registered user's request runs as, and the success envelope. Exports AdmissionService (MCP takes its slots per tool call)
 * and BacklogService (writes and commits check it). Pipes and filters are installed by
 * configure-app.ts.
 */
@Module({
  providers: [
    AdmissionService,
    BacklogService,
    LimitsChannelService,
    { provide: APP_INTERCEPTOR, useClass: TenantWriterInterceptor },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
  ],
  exports: [AdmissionService, BacklogService, LimitsChannelService],
})
export class GatewayHttpModule {}

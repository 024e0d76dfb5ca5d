import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AdmissionService } from './admission.service';
import { BacklogService } from './backlog.service';
import { EnvelopeInterceptor } from './envelope.interceptor';

/**
 * The HTTP cross-cuts that are Nest providers: per-caller admission (rate and concurrency), the per-account
 * backlog bounds and the success envelope. Exports AdmissionService (MCP takes its slots per tool call)
 * and BacklogService (writes and commits check it). Pipes and filters are installed by
 * configure-app.ts.
 */
@Module({
  providers: [AdmissionService, BacklogService, { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor }],
  exports: [AdmissionService, BacklogService],
})
export class GatewayHttpModule {}

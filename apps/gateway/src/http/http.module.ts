import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AdmissionService } from './admission.service';
import { EnvelopeInterceptor } from './envelope.interceptor';

/**
 * The HTTP cross-cuts that are Nest providers: per-caller admission (rate and concurrency) and the success
 * envelope. Exports AdmissionService: MCP takes its slots per tool call. Pipes and filters are installed by
 * configure-app.ts.
 */
@Module({
  providers: [AdmissionService, { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor }],
  exports: [AdmissionService],
})
export class GatewayHttpModule {}

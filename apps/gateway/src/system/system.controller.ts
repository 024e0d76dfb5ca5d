import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { Public } from '../auth/public.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { HealthService } from './health.service';
import { MetricsService } from './metrics.service';

@ApiTags('system')
@Controller()
export class SystemController {
  constructor(private readonly health: HealthService, private readonly metrics: MetricsService) {}

  @Get('health')
  @Public()
  @RawResponse()
  @ApiOperation({ summary: 'Liveness of Redis and the store (not enveloped; 503 when degraded)' })
  async healthCheck(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.report();
    if (!report.healthy) void reply.status(503);
    return report;
  }

  @Get('ready')
  @Public()
  @RawResponse()
  @ApiOperation({ summary: 'Readiness: Redis, store and a worker per queue in use (not enveloped; 503 if not)' })
  async readyCheck(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.readiness();
    if (!report.ready) void reply.status(503);
    return report;
  }

  @Get('metrics')
  @Public()
  @RawResponse()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus metrics' })
  prometheus() {
    return this.metrics.registry.metrics();
  }

  @Get('api/v1/system/status')
  @ApiOperation({ summary: 'Whether the server is initialised, and who is calling' })
  @ApiOkEnvelope('object')
  status(@Caller() c: Identity) {
    return { initialized: true, user: c.userId, account_id: c.accountId, role: c.role };
  }
}

import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { IdentityService } from '../auth/identity.service';
import { Public } from '../auth/public.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { AccountUsageService } from './account-usage.service';
import { HealthService } from './health.service';
import { MetricsService } from './metrics.service';
import { QueueWaitService } from './queue-wait.service';
import { WaitDto } from './dto/wait.dto';

@ApiTags('system')
@Controller()
export class SystemController {
  constructor(
    private readonly health: HealthService,
    private readonly metrics: MetricsService,
    private readonly waiter: QueueWaitService,
    private readonly identities: IdentityService,
    private readonly usage: AccountUsageService,
  ) {}

  @Get('health')
  @Public()
  @RawResponse()
  @ApiOperation({ summary: 'Liveness of Redis and the store (not enveloped; 503 when degraded)' })
  async healthCheck(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.report();
    if (!report.healthy) void reply.status(503);
    return { ...report, ...(await this.keyIdentity(req)) };
  }

  /** With a key that resolves, /health names who it belongs to; an unresolvable key just adds nothing. */
  private async keyIdentity(req: FastifyRequest) {
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    if (!header('x-api-key') && !header('authorization')) return {};
    // Resolved as for a root-allowed path (status), and without the actor header, which /health ignores.
    const input = {
      path: '/api/v1/system/status',
      remoteAddress: req.socket.remoteAddress,
      header: (n: string) => (n === 'x-openviking-actor-peer' ? undefined : header(n)),
    };
    return this.identities.resolve(input).then(
      (id) => ({ account_id: id.accountId, user_id: id.userId, role: id.role }),
      () => ({}),
    );
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
  @ApiOperation({
    summary:
      "Whether the server is initialised, who is calling, and the caller's account storage against its quota (`storage`), its background work against the backlog bounds (`backlog`) and its model tokens today (extraction, query expansion, digest) against its budget (`model`)",
  })
  @ApiOkEnvelope('object')
  async status(@Caller() c: Identity) {
    // Initialised: the store (migrated at start-up) answers now; a caller resolved from it cannot say less.
    const [{ checks }, { usage }] = await Promise.all([this.health.report(), this.usage.report(c.accountId)]);
    return {
      initialized: checks.store === 'up',
      user: c.userId,
      account_id: c.accountId,
      role: c.role,
      // After the contract's keys (docs/limits-and-security.md): what the account stores against its quota
      // (MUNINN_ACCOUNT_MAX_* or its own limits), its background work against the backlog bounds, and its
      // model tokens this UTC day (extraction, expansion, digest) against its budget (null: none).
      ...usage,
    };
  }

  @Post('api/v1/system/wait')
  @HttpCode(200)
  @ApiOperation({ summary: 'Wait until every processing queue is empty (504 after timeout seconds)' })
  @ApiOkEnvelope('object')
  wait(@Caller() c: Identity, @Body() b: WaitDto) {
    return this.waiter.waitIdle(c, b.timeout);
  }

  @Get('api/v1/debug/health')
  @ApiOperation({ summary: 'Whether the store and queues are healthy' })
  @ApiOkEnvelope('object')
  async debugHealth() {
    return { healthy: (await this.health.report()).healthy };
  }
}

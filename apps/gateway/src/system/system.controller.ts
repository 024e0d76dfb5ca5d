import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '@app/kernel';
import { ModelBudget } from '@app/queue';
import { AccountLimitsService, NodeRepository, SessionRepository } from '@app/store';
import { Caller } from '../auth/caller.decorator';
import { IdentityService } from '../auth/identity.service';
import { Public } from '../auth/public.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { BacklogService } from '../http/backlog.service';
import { RawResponse } from '../http/raw-response.decorator';
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
    private readonly nodes: NodeRepository,
    private readonly sessions: SessionRepository,
    private readonly backlog: BacklogService,
    private readonly modelBudget: ModelBudget,
    private readonly limits: AccountLimitsService,
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
    const { checks } = await this.health.report();
    const { model_tokens_per_day: modelLimit } = await this.limits.of(c.accountId);
    const [usage, held, backlog, modelTokens] = await Promise.all([
      this.nodes.storage(c.accountId),
      this.sessions.accountSessions(c.accountId),
      this.backlog.report(c.accountId),
      // Unreadable (Redis away): null, as the budget itself then does not apply.
      this.modelBudget.usedToday(c.accountId, modelLimit).catch(() => null),
    ]);
    return {
      initialized: checks.store === 'up',
      user: c.userId,
      account_id: c.accountId,
      role: c.role,
      // After the contract's keys: what the account stores against its quota (MUNINN_ACCOUNT_MAX_* or its own limits).
      storage: {
        nodes: usage.nodes,
        content_bytes: usage.contentBytes,
        max_nodes: usage.quota?.maxNodes ?? null,
        max_content_bytes: usage.quota?.maxContentBytes ?? null,
        sessions: held.sessions,
        max_sessions: held.maxSessions,
      },
      // Files awaiting indexing and commits awaiting extraction against MUNINN_ACCOUNT_MAX_PENDING_*.
      backlog,
      // Model tokens this UTC day (extraction, expansion, digest) against the account's budget (null: none).
      model: { tokens_today: modelTokens, max_tokens_per_day: modelLimit || null },
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

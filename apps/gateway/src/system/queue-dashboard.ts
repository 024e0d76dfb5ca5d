import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { IdentityService } from '../auth/identity.service';
import { errorEnvelope } from '../http/error-envelope';
import { statusOf } from '../http/status-of';

/** Where the dashboard lives: under the admin prefix, which only the root key may call. */
export const QUEUE_DASHBOARD_PATH = '/api/v1/admin/queues';

/**
 * Mounts Bull Board (read-only) over every queue, behind the root key: no key or a bad key → 401,
 * any key but the root one → 403 (docs/operations.md "Queue dashboard"). Job payloads hold tenant
 * queries and content, hence root only and no write actions. Nothing is mounted with the in-process
 * transport (there are no queues to show).
 */
export function mountQueueDashboard(app: NestFastifyApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG, { strict: false });
  if (config.queues.transport !== 'bullmq') return;
  const queues = Object.values(QueueName).map((name) => app.get<Queue>(getQueueToken(name), { strict: false }));
  const identities = app.get(IdentityService, { strict: false });
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })), serverAdapter: board });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  void fastify.register(
    async (scope) => {
      scope.addHook('onRequest', (req, reply) => rootOnly(identities, req, reply));
      await scope.register(board.registerPlugin());
    },
    { prefix: QUEUE_DASHBOARD_PATH },
  );
}

async function rootOnly(identities: IdentityService, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  try {
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const who = await identities.resolve({ path: QUEUE_DASHBOARD_PATH, remoteAddress: req.ip, header });
    if (who.role !== 'root') {
      throw new KernelError(KernelErrorCode.PermissionDenied, 'The queue dashboard needs the root API key.');
    }
  } catch (err) {
    const e = err instanceof KernelError ? err : new KernelError(KernelErrorCode.Internal, 'authentication failed');
    await reply.status(statusOf(e.code)).send(errorEnvelope(e.code, e.message));
  }
}

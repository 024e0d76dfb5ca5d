import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { runInWorkContext } from '@app/queue';

/** A caller-chosen request id is kept only when short and plain; anything else gets a fresh UUID. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PROBES = new Set(['/health', '/ready', '/metrics']);

/** Fastify's request id: the caller's `X-Request-Id` when safe, else a UUID (docs/operations.md "Logs"). */
export function requestIdOf(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && SAFE_ID.test(v) ? v : randomUUID();
}

/**
 * Puts each request's id in the work context (so every log line and every job it adds carries it),
 * echoes it in `X-Request-Id`, and logs one line per finished request (probes excepted).
 */
export function trackRequests(fastify: FastifyInstance): void {
  const log = new Logger('Http');
  // preHandler runs after the body is parsed, in the same call chain as the route handler.
  fastify.addHook('preHandler', (req, _reply, done) => runInWorkContext({ requestId: req.id }, done));
  fastify.addHook('onSend', (req, reply, payload, done) => {
    void reply.header('x-request-id', req.id);
    done(null, payload);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const path = req.url.split('?')[0];
    if (!PROBES.has(path)) {
      const route = req.routeOptions?.url ?? 'unmatched';
      const ms = Math.round(reply.elapsedTime);
      log.log({ requestId: req.id, method: req.method, route, status: reply.statusCode, ms });
    }
    done();
  });
}

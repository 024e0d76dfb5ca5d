import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { context, Span, SpanKind, trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { runInWorkContext } from '@app/queue';

/**
 * Reads (GET, and the search routes: search, find, recall, grep, glob) stop when their client goes away
 * (docs/limits-and-security.md, "A client that goes away"): nobody reads the answer. Writes run to their
 * end, so a retry with the same Idempotency-Key finds their reply.
 */
function abandonable(method: string, url: string): boolean {
  return method === 'GET' || url.startsWith('/api/v1/search/');
}

/** Waits one call may hold on its request's abandon signal at once (each job it runs waits on it, once or twice). */
const WAITS_PER_CALL = 4;

/**
 * Aborted when the response closes before it was sent in full: its client went away. `calls`: how many calls
 * the request runs at once (a JSON-RPC batch's messages, bounded by `MUNINN_MCP_MAX_BATCH`): each of their waits
 * listens on the signal, and past Node's default of 10 listeners a batch of 16 searches printed "Possible
 * EventTarget memory leak detected" (each listener is removed when its wait ends).
 */
export function abandonSignal(res: ServerResponse, calls = 1): AbortSignal {
  const abandoned = new AbortController();
  setMaxListeners(Math.max(10, WAITS_PER_CALL * calls), abandoned.signal);
  const closed = () => {
    if (!res.writableFinished) abandoned.abort();
  };
  if (res.destroyed) closed();
  else res.once('close', closed);
  return abandoned.signal;
}

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
  const spans = new WeakMap<object, Span>();
  const tracer = trace.getTracer('muninn');
  fastify.addHook('onRequest', (req, _reply, done) => {
    const attributes = { 'muninn.request_id': req.id };
    spans.set(req, tracer.startSpan(`HTTP ${req.method}`, { kind: SpanKind.SERVER, attributes }));
    done();
  });
  // preHandler runs after the body is parsed, in the same call chain as the route handler: the
  // request id and the request's span become the current ones for everything the handler does.
  fastify.addHook('preHandler', (req, reply, done) => {
    const span = spans.get(req);
    const ctx = span ? trace.setSpan(context.active(), span) : context.active();
    const authMs = (req as { authMs?: number }).authMs;
    const abandoned = abandonable(req.method, req.url) ? abandonSignal(reply.raw) : undefined;
    // Authenticated by the request gate before the body was read: the request's statements are its account's.
    const accountId = (req as { identity?: { accountId?: string } }).identity?.accountId;
    context.with(ctx, () => runInWorkContext({ requestId: req.id, authMs, abandoned, accountId }, done));
  });
  fastify.addHook('onSend', (req, reply, payload, done) => {
    void reply.header('x-request-id', req.id);
    done(null, payload);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const span = spans.get(req);
    if (span) {
      const route = req.routeOptions?.url ?? 'unmatched';
      span.setAttributes({ 'http.route': route, 'http.response.status_code': reply.statusCode });
      span.updateName(`HTTP ${req.method} ${route}`);
      span.end();
    }
    const path = req.url.split('?')[0];
    if (!PROBES.has(path)) {
      const route = req.routeOptions?.url ?? 'unmatched';
      const ms = Math.round(reply.elapsedTime);
      log.log({ requestId: req.id, method: req.method, route, status: reply.statusCode, ms });
    }
    done();
  });
}

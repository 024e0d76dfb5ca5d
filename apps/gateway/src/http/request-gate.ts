import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '@app/config';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { DomainExceptionFilter } from './domain-exception.filter';
import { MCP_PATH } from './json-rpc-error';
import { isLoopbackHost, isLoopbackOrigin } from './loopback';
import { boundsIssue } from './request-bounds';
import { RequestValidationError } from './request-validation.error';
import { routeOf } from './route-of';
import { MULTIPART_TYPE, UPLOAD_ROUTE } from './upload-route';
import { IMPORT_ROUTE, NDJSON_TYPE } from './import-route';

/** What the gate needs from the app: the mode, the body limit, and how to authenticate a request. */
export interface GateOptions {
  devMode: boolean;
  bodyLimitBytes: number;
  /** The declared length an account import's NDJSON body may have (MUNINN_IMPORT_MAX_BYTES). */
  importMaxBytes: number;
  /** Request bounds (depth, NUL, field and URI bounds) checked on every parsed body and query. */
  limits: AppConfig['limits'];
  /** Resolves and attaches the caller's identity; throws a KernelError when it cannot. */
  authenticate(req: FastifyRequest): Promise<void>;
  /**
   * Admission after authentication (rate limits, per-account concurrency), before the body is read; `bodyBytes` is
   * its declared length (0: no body; Infinity: a body sent without a declared length). May throw a KernelError.
   */
  admit?(req: FastifyRequest, reply: FastifyReply, bodyBytes: number): Promise<void>;
  /** Counts `points` more requests against the caller (each further message of a JSON-RPC batch). */
  charge?(req: FastifyRequest, points: number): Promise<void>;
}

/** Routes that serve no tenant data and need no identity (the `@Public()` handlers and Swagger's own). */
const PUBLIC = /^\/(health|ready|metrics|openapi\.(json|yaml)|docs)(\/|$|\?)/;
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

export function isPublicPath(url: string): boolean {
  return PUBLIC.test(url);
}

/**
 * The first thing every request meets, in Fastify's `onRequest` hook, before its body is read
 * (docs/limits-and-security.md, "Request gate"): dev-mode Host/Origin checks, 415 for a body that
 * is not JSON, authentication, 413 for a declared length over the limit, then admission. So an
 * unauthenticated or refused request never costs a body parse.
 */
export function installRequestGate(fastify: FastifyInstance, opts: GateOptions): void {
  const filter = new DomainExceptionFilter();
  const refuse = (req: FastifyRequest, reply: FastifyReply, err: unknown) => filter.reply(reply, routeOf(req), err);
  fastify.addHook('onRequest', async (req, reply) => {
    try {
      await gate(req, reply, opts);
    } catch (err) {
      // The body is not read; Node discards what the client still sends once the reply is written.
      return refuse(req, reply, err);
    }
  });
  fastify.addHook('preValidation', async (req, reply) => {
    const route = routeOf(req);
    if (isPublicPath(route)) return;
    if (MCP_PATH.test(route) && Array.isArray(req.body) && req.body.length > opts.limits.mcpMaxBatch) {
      const message = `A JSON-RPC batch should have at most ${opts.limits.mcpMaxBatch} messages, not ${req.body.length}`;
      return refuse(req, reply, new RequestValidationError([{ loc: ['body'], message, type: 'too_long' }]));
    }
    if (MCP_PATH.test(route) && Array.isArray(req.body) && req.body.length > 1 && opts.charge) {
      try {
        await opts.charge(req, req.body.length - 1);
      } catch (err) {
        return refuse(req, reply, err);
      }
    }
    // An upload's body is the raw multipart bytes; the upload service bounds the file it carries.
    // Path parameters too: a NUL in `/admin/accounts/%00/…` reached the store and failed there (500).
    const issue =
      boundsIssue(req.params, 'path', route, opts.limits) ??
      boundsIssue(req.query, 'query', route, opts.limits) ??
      (req.body === undefined || Buffer.isBuffer(req.body) || isStream(req.body)
        ? null
        : boundsIssue(req.body, 'body', route, opts.limits));
    if (issue) return refuse(req, reply, new RequestValidationError([issue]));
  });
}

async function gate(req: FastifyRequest, reply: FastifyReply, opts: GateOptions): Promise<void> {
  const path = routeOf(req);
  if (isPublicPath(path)) return;
  if (opts.devMode) {
    if (!isLoopbackHost(req.headers.host)) {
      throw new KernelError(
        KernelErrorCode.PermissionDenied,
        'Dev mode serves localhost only: the Host header must name a loopback host.',
      );
    }
    if (!isLoopbackOrigin(header(req, 'origin'))) {
      throw new KernelError(
        KernelErrorCode.PermissionDenied,
        'Dev mode refuses cross-origin requests: Origin must be a localhost page.',
      );
    }
  }
  const declared = checkBodyType(req, path);
  if (req.routeOptions.url === undefined) return; // unknown route: the 404 needs no identity
  await opts.authenticate(req);
  const limit = IMPORT_ROUTE.test(path) ? opts.importMaxBytes : opts.bodyLimitBytes;
  // A body of undeclared length is bounded as it is read (Fastify's body limit).
  if (Number.isFinite(declared) && declared > limit) {
    throw new KernelError(KernelErrorCode.PayloadTooLarge, 'Request body is too large', {
      field: 'body',
      limit_bytes: limit,
    });
  }
  if (opts.admit) await opts.admit(req, reply, declared);
}

/**
 * Refuses a body that is not JSON (415), or not multipart on the upload route, or not NDJSON on the
 * import route; returns the declared body length (0 without a body, Infinity for a body of undeclared length).
 */
function checkBodyType(req: FastifyRequest, path: string): number {
  const length = header(req, 'content-length');
  const hasBody = (length !== undefined && length !== '0') || header(req, 'transfer-encoding') !== undefined;
  if (!hasBody) return 0;
  const type = header(req, 'content-type') ?? '';
  const [pattern, expected] =
    path === UPLOAD_ROUTE
      ? [MULTIPART_TYPE, 'multipart/form-data']
      : IMPORT_ROUTE.test(path)
        ? [NDJSON_TYPE, 'application/x-ndjson']
        : [JSON_TYPE, 'application/json'];
  if (!pattern.test(type)) {
    throw new KernelError(KernelErrorCode.UnsupportedMediaType, `Unsupported content type; send ${expected}`, {
      content_type: type.slice(0, 100),
    });
  }
  return length === undefined ? Number.POSITIVE_INFINITY : Number(length) || 0;
}

/** A body handed on unread (the import's NDJSON stream): the import bounds what it reads. */
function isStream(body: unknown): boolean {
  return typeof (body as { pipe?: unknown } | null)?.pipe === 'function';
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { KernelError } from '@app/kernel';
import { errorEnvelope, validationEnvelope } from './error-envelope';
import { isJsonParseError, jsonRpcError, MCP_PATH } from './json-rpc-error';
import { RequestValidationError } from './request-validation.error';
import { routeOf } from './route-of';
import { routedMethods } from './route-methods';
import { codeOfStatus, statusOf } from './status-of';

/** Responses refused at a named limit (`details.limit`), for the metrics hook; keyed by the raw response. */
const REFUSALS = new WeakMap<object, string>();

/** The limit `reply` was refused at (a 429 or 413 naming `details.limit`), if it was. */
export function refusalLimit(reply: FastifyReply): string | undefined {
  return REFUSALS.get(reply.raw);
}

/**
 * The limit an error refuses at (`details.limit`: rate, line, quota, backlog), if it names one. Limit
 * names are constants of the code, so they make a bounded metrics label.
 */
export function limitOf(exception: unknown): string | undefined {
  const limit = exception instanceof KernelError ? exception.details?.limit : undefined;
  return typeof limit === 'string' ? limit : undefined;
}

/** Renders every error in the contract's envelope; unknown ones become a 500 with a logged errorId. */
@Catch()
export class DomainExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(DomainExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost) {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const allow = methodsOfKnownPath(exception, host.switchToHttp().getRequest<FastifyRequest>());
    if (allow.length) {
      // A known path with the wrong method is 405 (before auth: no route, no guard), not 404.
      void reply
        .status(405)
        .header('allow', allow.join(', '))
        .header('content-type', 'application/json; charset=utf-8');
      void reply.send(errorEnvelope('UNKNOWN', 'Method Not Allowed'));
      return;
    }
    const request = host.switchToHttp().getRequest<FastifyRequest | undefined>();
    void this.reply(reply, request ? routeOf(request) : '', exception);
  }

  /**
   * Answers `exception` on `reply`: the envelope, or on /mcp a JSON-RPC error body (Fastify's own
   * refusals, a body that is not JSON say, reach no MCP controller), with `Retry-After` when the
   * refusal says when to retry. The one way every error is answered: this filter, the request gate
   * and the MCP controller's filter.
   */
  reply(reply: FastifyReply, url: string, exception: unknown): FastifyReply {
    const { status, body } = this.render(exception);
    const payload = MCP_PATH.test(url) ? jsonRpcError(body, isJsonParseError(exception)) : body;
    const retry = exception instanceof KernelError ? exception.details?.retry_after_s : undefined;
    if (typeof retry === 'number') void reply.header('retry-after', String(retry));
    const limit = limitOf(exception);
    if (limit && reply.raw) REFUSALS.set(reply.raw, limit);
    return reply.status(status).header('content-type', 'application/json; charset=utf-8').send(payload);
  }

  /** Status and body for any thrown value (also used by the Fastify-level error handler). */
  render(exception: unknown): { status: number; body: unknown } {
    if (exception instanceof RequestValidationError) return { status: 400, body: validationEnvelope(exception.issues) };
    if (exception instanceof KernelError) {
      return {
        status: statusOf(exception.code, exception.details),
        body: errorEnvelope(exception.code, exception.message, exception.details ?? {}),
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const res = exception.getResponse();
      const message = typeof res === 'string' ? res : ((res as { message?: unknown }).message ?? exception.message);
      return { status: status === 422 ? 400 : status, body: errorEnvelope(codeOfStatus(status), String(message)) };
    }
    const fastifyStatus = (exception as { statusCode?: unknown })?.statusCode;
    if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
      return {
        status: fastifyStatus,
        body: errorEnvelope(codeOfStatus(fastifyStatus), clientMessage(exception, fastifyStatus)),
      };
    }
    const errorId = randomUUID();
    this.logger.error(
      `errorId=${errorId} ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    return { status: 500, body: errorEnvelope('INTERNAL', 'Internal server error', { error_id: errorId }) };
  }
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Methods the path is routed for, when `exception` is the router's "no route" 404; else []. */
function methodsOfKnownPath(exception: unknown, request: FastifyRequest | undefined): string[] {
  if (!(exception instanceof NotFoundException) || !request?.server || !/^Cannot [A-Z]+ /.test(exception.message))
    return [];
  const path = request.url.split('?')[0]!;
  return routedMethods(
    request.server,
    path,
    METHODS.filter((m) => m !== request.method),
  );
}

function clientMessage(exception: unknown, status: number): string {
  const code = (exception as { code?: string }).code ?? '';
  if (status === 413) return 'Request body is too large';
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'Unsupported content type; send application/json';
  if (code.startsWith('FST_ERR_CTP') || exception instanceof SyntaxError) {
    return `Invalid request parameters: body: Invalid JSON (${(exception as Error).message})`;
  }
  return exception instanceof Error ? exception.message : 'Bad request';
}

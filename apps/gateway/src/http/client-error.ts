import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { KernelErrorCode } from '@app/kernel';
import { errorEnvelope } from './error-envelope';

/** Node's refusal of a client too slow to send its headers (MUNINN_HTTP_HEADERS_TIMEOUT_S): 408. */
export function isHeadersTimeout(err: Error & { code?: string }): boolean {
  return err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over Node's size limit, a
 * malformed request line, a client too slow to send its headers) are answered in the contract's
 * envelope too, as the raw response Fastify would otherwise write with its own body shape.
 */
export function envelopeClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, KernelErrorCode.PayloadTooLarge, 'Request headers are too large']
      : isHeadersTimeout(err)
        ? [408, KernelErrorCode.DeadlineExceeded, 'The request was not received in time']
        : [400, KernelErrorCode.InvalidArgument, 'Malformed HTTP request'];
  const body = JSON.stringify(errorEnvelope(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Fastify's router refusals (a path that is not valid percent-encoding: 400; a path parameter over its
 * length limit, 414, which Node's header bound now comes before) reach no route and no hook, so they are
 * enveloped here.
 */
export function envelopeFrameworkError(err: Error & { statusCode?: number }, _req: unknown, reply: FastifyReply): void {
  const status = err.statusCode ?? 400;
  const message = status === 414 ? 'A path parameter is too long' : 'Malformed URL path';
  void reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(errorEnvelope(KernelErrorCode.InvalidArgument, message));
}

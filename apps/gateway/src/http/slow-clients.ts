import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { IMPORT_ROUTE } from './import-route';
import { routeOf } from './route-of';

/**
 * The limit names slow-client refusals carry (`details.limit`, counted in `muninn_refusals_total`): the
 * headers not in within MUNINN_HTTP_HEADERS_TIMEOUT_S, a body not in within MUNINN_HTTP_BODY_TIMEOUT_S,
 * an import's body silent for MUNINN_IMPORT_IDLE_S.
 */
export type SlowClientLimit = 'headers_timeout' | 'body_timeout' | 'import_idle';

/**
 * The time a body's bytes so far buy beyond the body timeout: one second per `minRate` bytes (0: none). A
 * client sending at least that fast is never cut off; a slower one gets the timeout and what it sent.
 */
export function bodyDeadlineExtension(bytes: number, minRate: number): number {
  return minRate > 0 && bytes > 0 ? (bytes * 1000) / minRate : 0;
}

/** 408 DEADLINE_EXCEEDED naming the body: the client did not send it in time. */
export function bodyTooSlow(limit: SlowClientLimit, message: string, details: Record<string, unknown>): KernelError {
  return new KernelError(KernelErrorCode.DeadlineExceeded, message, { field: 'body', limit, ...details });
}

/**
 * Slow clients cannot hold a gateway's sockets, or their account's request slots, for long
 * (docs/limits-and-security.md, "Slow clients"):
 *
 * - A body still arriving when the gateway starts to read it must be in within `bodyTimeoutMs`, plus one
 *   second for every `bodyMinRate` bytes it sent meanwhile, else 408 (the account import's body, which
 *   streams for as long as the export is large, has its own idle bound). Without it a client sending one
 *   byte every few seconds held its connection, and a slot of its account, for as long as it liked; with a
 *   fixed deadline alone, an honest client on a slow link could not send a large body at all.
 * - A reply sent before the request's body is in (a refusal before reading it: 401, 413, 429, 408; an import
 *   refused at a line) closes the connection. Otherwise Node reads and discards whatever the client still
 *   sends, however long it trickles: a refused, unauthenticated client kept its socket open this way.
 * - A response whose client takes none of its bytes for `sendIdleMs` is abandoned (the connection closed).
 *   A client that asked for a large file and stopped reading held the response in the gateway's memory, and
 *   its account's request slot, for good.
 */
export function installSlowClientBounds(
  fastify: FastifyInstance,
  bounds: { bodyTimeoutMs: number; bodyMinRate: number; sendIdleMs: number },
): void {
  const { bodyTimeoutMs, bodyMinRate, sendIdleMs } = bounds;
  fastify.addHook('preParsing', (req, reply, payload, done) => {
    // A body that came with its headers (most do) needs no deadline; the import bounds its own.
    if (req.raw.complete || IMPORT_ROUTE.test(routeOf(req))) return done(null, payload);
    // The socket's own byte count: no listener on the body, whose reader Fastify attaches after this hook.
    const socket = req.raw.socket;
    const started = Date.now();
    const readAtStart = socket.bytesRead;
    let timer: NodeJS.Timeout;
    const check = () => {
      const received = socket.bytesRead - readAtStart;
      const left = started + bodyTimeoutMs + bodyDeadlineExtension(received, bodyMinRate) - Date.now();
      if (left > 0) {
        timer = setTimeout(check, left);
        return;
      }
      // Fastify's body reader listens for the payload's errors and answers them through the error filter;
      // with no reader (a body the route never reads) the reply's Connection: close ends it instead.
      if (payload.listenerCount('error') === 0) return;
      const s = bodyTimeoutMs / 1000;
      const rate = bodyMinRate > 0 ? `, and 1 s more per ${bodyMinRate} bytes sent (MUNINN_HTTP_BODY_MIN_RATE)` : '';
      payload.emit(
        'error',
        bodyTooSlow(
          'body_timeout',
          `The request body did not arrive in time: ${s} s (MUNINN_HTTP_BODY_TIMEOUT_S)${rate}; ${received} bytes came`,
          { timeout_s: s, min_rate: bodyMinRate, received_bytes: received },
        ),
      );
    };
    timer = setTimeout(check, bodyTimeoutMs);
    const clear = () => clearTimeout(timer);
    payload.once('end', clear);
    reply.raw.once('close', clear);
    done(null, payload);
  });
  fastify.addHook('onSend', (req, reply, payload, done) => {
    if (!req.raw.complete) void reply.header('connection', 'close');
    // The socket's idle timer runs only while the response is sent (the handler's own work, a waiting
    // write up to MUNINN_WAIT_MAX_S, came before): any byte the client takes restarts it, and at its end
    // Node destroys the socket (no 'timeout' listener is set). It stops when the response is out, before
    // Node's own 'finish' handler sets the keep-alive timer, so a request pipelined behind this one does
    // not inherit it while its handler works.
    const socket = req.raw.socket;
    if (socket) {
      socket.setTimeout(sendIdleMs);
      reply.raw.prependOnceListener('finish', () => socket.setTimeout(0));
    }
    done(null, payload);
  });
}

/**
 * The send-idle bound for a response its handler writes itself (the MCP transport, after `reply.hijack()`),
 * which the `onSend` hook never sees: the socket's idle timer runs while a write waits for the client to take
 * bytes (the write found the buffers full, or the response is ended and not yet out), and stops when they
 * drain. Between writes it does not run: a tool call that waits for its indexing sends nothing for a while,
 * and that is the handler's work, not a client that stopped reading. Without it a client that read nothing of
 * an MCP batch's answer held the answer in memory, and its large-body slot, for good.
 */
export function boundRawSend(res: ServerResponse, sendIdleMs: number): void {
  const socket = res.socket;
  if (!socket) return;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const idle = () => socket.setTimeout(0);
  res.on('drain', idle);
  res.prependOnceListener('finish', idle);
  res.write = ((...args: unknown[]) => {
    const flushed = write(...args);
    if (!flushed) socket.setTimeout(sendIdleMs);
    return flushed;
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    if (!res.writableFinished) socket.setTimeout(sendIdleMs);
    return end(...args);
  }) as ServerResponse['end'];
}

/**
 * `source`'s items, failing with `timedOut()` when the next one takes longer than `idleMs` to come. Only the
 * wait for the source counts, not the consumer's work between items. A read left pending by the failure
 * settles when the request's connection closes; its outcome is ignored.
 */
export async function* idleBounded<T>(
  source: AsyncIterable<T> | Iterable<T>,
  idleMs: number,
  timedOut: () => Error,
): AsyncGenerator<T> {
  const it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : toAsync(source[Symbol.iterator]());
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const next = it.next();
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut()), idleMs);
    });
    let r: IteratorResult<T>;
    try {
      r = await Promise.race([next, idle]);
    } catch (err) {
      next.catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    if (r.done) return;
    yield r.value;
  }
}

function toAsync<T>(it: Iterator<T>): AsyncIterator<T> {
  return { next: () => Promise.resolve(it.next()) };
}

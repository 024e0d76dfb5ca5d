import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { IDEMPOTENT_REPLAYED_HEADER, keepsReply } from '@app/kernel';
import { IdempotencyClaim, IdempotencyRepository, WriteScope } from '@app/store';
import { IdempotentRequest, ResumeTarget } from './idempotent-request';

const logger = new Logger('Idempotency');

/**
 * The reply side of Idempotency-Key (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"),
 * as a Fastify `onSend` hook because only there is the reply final (envelope, status, error mapping):
 * a replay answers the kept status and bytes; a first attempt's reply is kept before it is sent when the
 * attempt changed something or succeeded, else its key is freed for a retry. The hook also runs when the
 * client has gone away, so an attempt that outlives its client still leaves its reply for the retry.
 */
export function installIdempotentReplies(
  fastify: FastifyInstance,
  keys: IdempotencyRepository,
  count: (outcome: string) => void,
): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    const attempt = (request as IdempotentRequest).idempotency;
    if (!attempt) return payload;
    if ('refused' in attempt) {
      count(attempt.refused);
      return payload;
    }
    if ('replay' in attempt) {
      count('replayed');
      const kept = attempt.replay;
      void reply.code(kept.status).header('content-type', kept.contentType).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
      return kept.body;
    }
    if ('resume' in attempt) {
      // Not applied again, as a replay: the retry waited for the first attempt's write.
      void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
      count(await keepResumed(keys, attempt.resume, reply, payload));
      return payload;
    }
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    const answer = { status: reply.statusCode, contentType: contentTypeOf(reply), body };
    count(await settleAttempt(keys, attempt.claim, attempt.scope, answer));
    return payload;
  });
}

/**
 * Ends a first attempt (a REST reply, or an MCP tool call's result): keeps its answer for its retries when it
 * changed something or succeeded, else frees the key for a retry; answers the outcome `/metrics` counts. `body`
 * null: an answer that cannot be kept (a stream).
 */
export async function settleAttempt(
  keys: IdempotencyRepository,
  claim: IdempotencyClaim,
  scope: WriteScope,
  answer: { status: number; contentType: string; body: string | null },
): Promise<string> {
  if (scope.state !== 'open') return 'already_settled';
  const { status, contentType, body } = answer;
  try {
    if (body !== null && keepsReply(status, scope.applied)) {
      scope.state = 'finished';
      // A 504 after the write was stored: its retries wait for the write's indexing again.
      const resume = status === 504 && scope.applied ? scope.pendingWait : undefined;
      await keys.keepReply(claim, { status, contentType, body, ...(resume ? { resume } : {}) });
      return resume ? 'kept_waiting' : 'kept';
    }
    if (!scope.applied) {
      scope.state = 'released';
      await keys.release(claim);
      return 'released';
    }
    // Applied, but the reply is not one to keep (a stream): its retries are told so.
    scope.state = 'finished';
    return 'unkept';
  } catch (err) {
    // The reply still goes out; a retry then finds the key running (until its lease ends) or applied.
    logger.warn(`could not settle an idempotency key: ${(err as Error).message}`);
    return 'settle_failed';
  }
}

/**
 * A retry that waited again for a write's indexing: a success replaces the kept 504, so later retries replay
 * it; a wait that ran out again (or failed otherwise) leaves the 504 resumable.
 */
async function keepResumed(
  keys: IdempotencyRepository,
  resume: ResumeTarget,
  reply: FastifyReply,
  payload: unknown,
): Promise<string> {
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (body === null || reply.statusCode < 200 || reply.statusCode >= 300) return 'still_waiting';
  return keepResumedReply(keys, resume, {
    status: reply.statusCode,
    contentType: contentTypeOf(reply),
    body,
  });
}

/** Replaces a kept resumable 504 by the answer its retry's wait ended with (a REST reply or a tool result). */
export async function keepResumedReply(
  keys: IdempotencyRepository,
  target: ResumeTarget,
  answer: { status: number; contentType: string; body: string },
): Promise<string> {
  try {
    await keys.keepResumed(target.owner, target.key, target.holder, answer);
    return 'resumed';
  } catch (err) {
    logger.warn(`could not keep a resumed reply: ${(err as Error).message}`);
    return 'settle_failed';
  }
}

function contentTypeOf(reply: FastifyReply): string {
  return String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
}

import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { StoredReply } from '@app/kernel';
import type { IdempotencyClaim, KeyOwner, WriteScope } from '@app/store';

/** What a request sent with an Idempotency-Key carries from the interceptor to the reply hook. */
export type IdempotentAttempt =
  | { replay: StoredReply }
  /** A retry waiting again for the indexing of a write whose first wait ran out (its key names it). */
  | { resume: { owner: KeyOwner; key: string } }
  | { claim: IdempotencyClaim; scope: WriteScope }
  /** Refused before the handler: why (`details.reason` of the 409 / 422, or `malformed`). */
  | { refused: string };

export type IdempotentRequest = FastifyRequest & { idempotency?: IdempotentAttempt };

/**
 * What makes two requests "the same request" for a key: method, path with its query, the actor peer
 * (it narrows what the caller sees), and body. A retry sends the same bytes, so the parsed body
 * serialises the same way; a multipart body counts as its bytes.
 */
export function requestFingerprint(req: Pick<FastifyRequest, 'method' | 'url' | 'body' | 'headers'>): string {
  const peer = req.headers['x-openviking-actor-peer'] ?? '';
  const h = createHash('sha256').update(`${req.method} ${req.url}\n${String(peer)}\n`);
  const body = req.body;
  if (Buffer.isBuffer(body)) h.update(body);
  else h.update(JSON.stringify(body ?? null));
  return h.digest('base64url');
}

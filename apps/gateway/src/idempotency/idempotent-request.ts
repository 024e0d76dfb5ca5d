import type { FastifyRequest } from 'fastify';
import type { StoredReply } from '@app/kernel';
import type { IdempotencyClaim, KeyOwner, WriteScope } from '@app/store';

/** A kept resumable 504 a retry waits again for: the key, and the token of the attempt that kept it. */
export interface ResumeTarget {
  owner: KeyOwner;
  key: string;
  holder: string;
}

/** What a request sent with an Idempotency-Key carries from the interceptor to the reply hook. */
export type IdempotentAttempt =
  | { replay: StoredReply }
  /** A retry waiting again for the indexing of a write whose first wait ran out (its key names it). */
  | { resume: ResumeTarget }
  | { claim: IdempotencyClaim; scope: WriteScope }
  /** Refused before the handler: why (`details.reason` of the 409 / 422, or `malformed`). */
  | { refused: string };

export type IdempotentRequest = FastifyRequest & { idempotency?: IdempotentAttempt };

import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from './error-envelope.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'INVALID_ARGUMENT / INVALID_URI: the request is malformed',
  401: 'UNAUTHENTICATED: missing or invalid API key',
  403: "PERMISSION_DENIED: outside the caller's space or role",
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS / CONFLICT',
  412: 'FAILED_PRECONDITION',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first sent with a different request',
  429: "RESOURCE_EXHAUSTED: a rate limit, the account's line, or (writes, commits) its backlog is full; `details.limit` names which, `Retry-After` when to retry",
  503: 'UNAVAILABLE: Redis or the store is unreachable',
  504: 'DEADLINE_EXCEEDED',
};

/** Declares the error responses a route can give, all in the error envelope. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorEnvelopeDto })),
  );
}

/** Why a model call failed: no answer in time, an HTTP error status, an unusable body, or no model to call. */
export type LlmErrorKind = 'timeout' | 'http' | 'malformed' | 'unavailable';

/** Statuses a provider answers when it may well answer the same call later (as the embedder retries them). */
const TRANSIENT_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** A failed chat completion; `status` is set for `http`. */
export class LlmError extends Error {
  override readonly name = 'LlmError';
  /**
   * The provider did not take the call, for a reason that passes: an overloaded or rate-limited answer
   * (408, 409, 429, 5xx) or no connection. Such a call was not billed, so trying it again later costs
   * nothing; a timeout is not transient (the prompt was sent and may be billed, and a window the model
   * could not answer in time usually cannot on the next try either).
   */
  readonly transient: boolean;
  /** How long the provider asked callers to wait (its `Retry-After`), when it said. */
  readonly retryAfterMs?: number;

  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown; unreachable?: boolean; retryAfterMs?: number },
  ) {
    super(message, options);
    this.transient =
      (kind === 'http' && status !== undefined && TRANSIENT_STATUS(status)) ||
      (kind === 'unavailable' && options?.unreachable === true);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** The longest provider `Retry-After` honoured; a longer one is read as this. */
export const MAX_RETRY_AFTER_MS = 300_000;

/**
 * A `Retry-After` header's wait in milliseconds (delta-seconds or an HTTP date), capped at
 * {@link MAX_RETRY_AFTER_MS}; undefined when absent, malformed or not in the future.
 */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(Math.ceil(ms), MAX_RETRY_AFTER_MS) : undefined;
}

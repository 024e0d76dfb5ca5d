/** Why a model call failed: no answer in time, an HTTP error status, an unusable body, or no model to call. */
export type LlmErrorKind = 'timeout' | 'http' | 'malformed' | 'unavailable';

/** A failed chat completion; `status` is set for `http`. */
export class LlmError extends Error {
  override readonly name = 'LlmError';

  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

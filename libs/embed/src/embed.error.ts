export enum EmbedErrorCode {
  /** The configuration can never work (missing URL or model, bad dimension). */
  InvalidConfig = 'EMBED_INVALID_CONFIG',
  /** The provider refused the request for good (4xx other than 408/409/429). */
  Rejected = 'EMBED_REJECTED',
  /** Timeouts, 429, 5xx or network errors persisted through every retry. */
  Unavailable = 'EMBED_UNAVAILABLE',
  /** The provider answered with a body we cannot use (wrong count or dimension). */
  BadResponse = 'EMBED_BAD_RESPONSE',
  /** The caller aborted the call (its own fuse fired); says nothing about the provider. */
  Abandoned = 'EMBED_ABANDONED',
}

/** Error from an embedder; `retryable` tells a job whether a later attempt may succeed. */
export class EmbedError extends Error {
  constructor(
    readonly code: EmbedErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbedError';
  }
}

/** Stable domain error codes; the gateway maps each one to an HTTP status in one place. */
export enum KernelErrorCode {
  InvalidArgument = 'INVALID_ARGUMENT',
  InvalidUri = 'INVALID_URI',
  UnsupportedUri = 'UNSUPPORTED_URI',
  UnsupportedMode = 'UNSUPPORTED_MODE',
  PermissionDenied = 'PERMISSION_DENIED',
  NotFound = 'NOT_FOUND',
  AlreadyExists = 'ALREADY_EXISTS',
  Conflict = 'CONFLICT',
  /** An Idempotency-Key sent again with a different request (422). */
  IdempotencyKeyReused = 'IDEMPOTENCY_KEY_REUSED',
  FailedPrecondition = 'FAILED_PRECONDITION',
  ResourceExhausted = 'RESOURCE_EXHAUSTED',
  Unauthenticated = 'UNAUTHENTICATED',
  Unavailable = 'UNAVAILABLE',
  DeadlineExceeded = 'DEADLINE_EXCEEDED',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  Internal = 'INTERNAL',
}

/** A domain failure with a wire code, a human message and optional structured details. */
export class KernelError extends Error {
  override readonly name = 'KernelError';

  constructor(
    readonly code: KernelErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Shorthand for the most common failure: a 400 INVALID_ARGUMENT. */
export function invalidArgument(message: string, details?: Record<string, unknown>): KernelError {
  return new KernelError(KernelErrorCode.InvalidArgument, message, details);
}

/** INVALID_URI with the reference message shape `Invalid URI: <uri> (<reason>)`. */
export function invalidUri(uri: string, reason: string): KernelError {
  const message = reason ? `Invalid URI: ${uri} (${reason})` : `Invalid URI: ${uri}`;
  return new KernelError(KernelErrorCode.InvalidUri, message, { uri, reason });
}

/** PERMISSION_DENIED naming the resource the caller may not touch. */
export function permissionDenied(message: string, resource?: string): KernelError {
  return new KernelError(KernelErrorCode.PermissionDenied, message, resource ? { resource } : {});
}

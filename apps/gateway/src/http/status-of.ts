import { KernelErrorCode } from '@app/kernel';

/**
 * The only place a domain error code becomes an HTTP status (the reference's table). A deadline the
 * client missed while sending its request (`details.field` names what it did not send in time) is 408;
 * one the server missed is 504.
 */
export function statusOf(code: string, details?: Record<string, unknown>): number {
  switch (code) {
    case KernelErrorCode.InvalidArgument:
    case KernelErrorCode.InvalidUri:
    case KernelErrorCode.UnsupportedUri:
    case KernelErrorCode.UnsupportedMode:
      return 400;
    case KernelErrorCode.Unauthenticated:
      return 401;
    case KernelErrorCode.PermissionDenied:
      return 403;
    case KernelErrorCode.NotFound:
      return 404;
    case KernelErrorCode.AlreadyExists:
    case KernelErrorCode.Conflict:
      return 409;
    case KernelErrorCode.FailedPrecondition:
      return 412;
    case KernelErrorCode.IdempotencyKeyReused:
      return 422;
    case KernelErrorCode.PayloadTooLarge:
      return 413;
    case KernelErrorCode.UnsupportedMediaType:
      return 415;
    case KernelErrorCode.ResourceExhausted:
      return 429;
    case KernelErrorCode.Unavailable:
      return 503;
    case KernelErrorCode.DeadlineExceeded:
      return details?.field === undefined ? 504 : 408;
    default:
      return 500;
  }
}

/** The reverse mapping, for HTTP errors raised by the framework itself (unknown route, bad JSON, …). */
export function codeOfStatus(status: number): string {
  switch (status) {
    case 400:
    case 422:
      return KernelErrorCode.InvalidArgument;
    case 401:
      return KernelErrorCode.Unauthenticated;
    case 403:
      return KernelErrorCode.PermissionDenied;
    case 404:
      return KernelErrorCode.NotFound;
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 409:
      return KernelErrorCode.Conflict;
    case 413:
      return KernelErrorCode.PayloadTooLarge;
    case 415:
      return KernelErrorCode.UnsupportedMediaType;
    case 429:
      return KernelErrorCode.ResourceExhausted;
    case 408:
      return KernelErrorCode.DeadlineExceeded;
    case 502:
    case 503:
      return KernelErrorCode.Unavailable;
    case 504:
      return KernelErrorCode.DeadlineExceeded;
    default:
      return status >= 500 ? KernelErrorCode.Internal : 'UNKNOWN';
  }
}

import { KernelError, KernelErrorCode } from '@app/kernel';

/**
 * The one route that takes a multipart body and may authenticate with a one-shot `token` instead of
 * a key (docs/fs-and-mcp.md, "add_resource"). The request gate, the identity resolver and the
 * upload service all read it from here.
 */
export const UPLOAD_ROUTE = '/api/v1/resources/temp_upload';

export const MULTIPART_TYPE = /^multipart\/form-data\s*;/i;

/** A token that is malformed, unknown, used or expired (401, before or after the body was read). */
export function invalidUploadToken(): KernelError {
  return new KernelError(KernelErrorCode.Unauthenticated, 'Invalid, used or expired upload token');
}

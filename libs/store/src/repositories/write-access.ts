import { canWrite, Identity, KernelError, KernelErrorCode, uriSegments } from '@app/kernel';

/** Refuses writes outside the caller's writable space (kernel rules) and to indexer-owned sidecars. */
export function assertWritable(identity: Identity, uri: string): void {
  const segs = uriSegments(uri);
  const last = segs[segs.length - 1];
  if (last === '.abstract.md' || last === '.overview.md') {
    throw new KernelError(
      KernelErrorCode.InvalidArgument,
      `${last} sidecars are maintained by the indexer and cannot be written`,
      { resource: uri },
    );
  }
  if (!canWrite(identity, uri)) {
    throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied for ${uri} (outside your writable space)`, {
      resource: uri,
    });
  }
}

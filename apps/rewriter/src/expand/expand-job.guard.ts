import { ExpandJob } from '@app/contracts';

/** Structural check of an `expand` payload: anything else is a producer bug and fails without retry. */
export function isExpandJob(d: unknown): d is ExpandJob {
  const j = d as ExpandJob;
  return (
    !!j &&
    typeof j === 'object' &&
    typeof j.query === 'string' &&
    typeof j.latestArchiveOverview === 'string' &&
    Array.isArray(j.recentMessages) &&
    j.recentMessages.every((m) => !!m && typeof m.role === 'string' && typeof m.content === 'string') &&
    Number.isFinite(j.timeoutMs) &&
    j.timeoutMs > 0
  );
}

import { FindJob } from '@app/contracts';

const ROLES = new Set(['root', 'admin', 'user']);

/** Structural check of a `find` payload: anything else is a producer bug and fails without retry. */
export function isFindJob(d: unknown): d is FindJob {
  const j = d as FindJob;
  const id = j?.identity;
  return (
    !!j &&
    typeof j === 'object' &&
    !!id &&
    typeof id.accountId === 'string' &&
    id.accountId !== '' &&
    typeof id.userId === 'string' &&
    ROLES.has(id.role) &&
    (id.actorPeerId === null || typeof id.actorPeerId === 'string') &&
    typeof j.query === 'string' &&
    Array.isArray(j.targets) &&
    j.targets.every((t) => typeof t === 'string' && t.startsWith('viking://')) &&
    (j.filter === null || (typeof j.filter === 'object' && !Array.isArray(j.filter))) &&
    (j.levels === null || (Array.isArray(j.levels) && j.levels.every((l) => Number.isInteger(l)))) &&
    Number.isInteger(j.limit) &&
    (j.scoreThreshold === null || Number.isFinite(j.scoreThreshold)) &&
    (j.abstractChars === undefined || (Number.isInteger(j.abstractChars) && j.abstractChars >= 0))
  );
}

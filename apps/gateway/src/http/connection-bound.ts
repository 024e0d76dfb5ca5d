import { readFileSync } from 'node:fs';

/** Descriptors left beside the HTTP connections: the store's pool, Redis, the embedded store's files, logs. */
export const FD_RESERVE = 256;

/** This process's soft open-file limit, from Linux's /proc (null where it cannot be read or is unlimited). */
export function openFileLimit(procLimits: string | null = readProcLimits()): number | null {
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(procLimits ?? '');
  return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
}

/**
 * The connection bound in force (docs/limits-and-security.md, "Slow clients"): MUNINN_HTTP_MAX_CONNECTIONS,
 * or fewer where the open-file limit cannot hold that many beside FD_RESERVE. Past the limit an accepted
 * connection fails with EMFILE, and so do the store's and Redis's new connections: every tenant's requests
 * fail, where a bound below it closes only the extra connections.
 */
export function connectionBound(configured: number, fdLimit: number | null): { max: number; lowered: boolean } {
  if (fdLimit === null) return { max: configured, lowered: false };
  const room = Math.max(16, fdLimit - FD_RESERVE);
  return configured > room ? { max: room, lowered: true } : { max: configured, lowered: false };
}

function readProcLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}

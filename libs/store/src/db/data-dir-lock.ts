import {
  closeSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { KernelError, KernelErrorCode } from '@app/kernel';

/**
 * The embedded store's data folder has one owner process (docs/architecture.md, "Embedded store
 * thread"). PGlite has no postmaster.pid: two processes opening one folder both run, both acknowledge
 * writes, and whichever closes last overwrites the other's (measured: the second process's 50
 * committed rows were gone after both closed).
 *
 * The lock is `<folder>.lock`, created exclusively and holding the owner's pid and host; the owner
 * touches it every {@link REFRESH_MS}. It is stale, and taken over, when its process is gone from this
 * host, or when nobody touched it for {@link STALE_MS} (a crashed owner on another host or container
 * sharing the folder, or a reused pid). Written here rather than with proper-lockfile: that library
 * installs a process-wide SIGTERM listener (signal-exit), which turned the graceful shutdown's re-raised
 * SIGTERM into a plain exit 0.
 */
export const STALE_MS = 30_000;
const REFRESH_MS = 10_000;

interface Owner {
  pid: number;
  host: string;
}

/** Takes the folder's lock or throws UNAVAILABLE naming the folder and its holder; returns the release. */
export function lockDataDir(dir: string): () => void {
  const path = `${realpathSync(dir)}.lock`;
  const me: Owner = { pid: process.pid, host: hostname() };
  if (!tryCreate(path, me)) {
    const holder = readOwner(path);
    if (!isStale(path, holder, me.host)) throw lockedError(dir, path, holder);
    // Move the stale file aside first: of two processes taking it over at once, one rename wins.
    const aside = `${path}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(path, aside);
      unlinkSync(aside);
    } catch {
      /* the other process moved it first */
    }
    if (!tryCreate(path, me)) throw lockedError(dir, path, readOwner(path));
  }
  const timer = setInterval(() => touch(path), REFRESH_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    const holder = readOwner(path);
    if (holder?.pid === me.pid && holder.host === me.host) unlinkSync(path);
  };
}

function tryCreate(path: string, me: Owner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(path: string): Owner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Owner>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string'
      ? { pid: parsed.pid, host: parsed.host }
      : null;
  } catch {
    return null;
  }
}

/** Its process gone from this host (`host`), or untouched for longer than STALE_MS (so is an unreadable lock). */
function isStale(path: string, holder: Owner | null, host: string): boolean {
  if (holder && holder.host === host && !alive(holder.pid)) return true;
  try {
    return Date.now() - statSync(path).mtimeMs > STALE_MS;
  } catch {
    return true; // removed meanwhile
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function touch(path: string): void {
  try {
    const t = new Date();
    utimesSync(path, t, t);
  } catch {
    /* removed by an operator: the next start will create it again */
  }
}

function lockedError(dir: string, path: string, holder: Owner | null): KernelError {
  const who = holder ? `process ${holder.pid} on ${holder.host}` : 'another process';
  return new KernelError(
    KernelErrorCode.Unavailable,
    `The embedded store in ${dir} is open in another process (${who}; lock ${path}). One process owns ` +
      `an embedded store: stop the other one, give this one its own MUNINN_DATA_DIR, or set DATABASE_URL ` +
      `to share a PostgreSQL server between processes`,
    { service: 'store', reason: 'data_dir_locked', data_dir: dir },
  );
}

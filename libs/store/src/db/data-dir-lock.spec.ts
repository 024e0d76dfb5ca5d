import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { lockDataDir, STALE_MS } from './data-dir-lock';

describe('the embedded store folder lock', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'muninn-lock-'));
    dir = join(root, 'pgdata');
    mkdirSync(dir);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const lockFile = () => `${dir}.lock`;
  const refused = (): KernelError => {
    try {
      lockDataDir(dir);
    } catch (err) {
      return err as KernelError;
    }
    throw new Error('the second lock was granted');
  };

  it('a second owner is refused with UNAVAILABLE naming the folder and the holder; after release it is granted', () => {
    const release = lockDataDir(dir);
    const err = refused();
    expect(err.code).toBe(KernelErrorCode.Unavailable);
    expect(err.message).toContain(`The embedded store in ${dir} is open in another process (process ${process.pid}`);
    expect(err.message).toContain('DATABASE_URL');
    release();
    expect(existsSync(lockFile())).toBe(false);
    lockDataDir(dir)();
  });

  it('a lock left by a process that is gone from this host is taken over at once', () => {
    // pid 2^22 + 1 is above Linux's pid_max ceiling: never a live process.
    writeFileSync(lockFile(), JSON.stringify({ pid: 4_194_305, host: hostname() }));
    const release = lockDataDir(dir);
    expect(refused().code).toBe(KernelErrorCode.Unavailable);
    release();
  });

  it('a lock of another host is respected while it is touched, and taken over once it is stale', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: 1, host: 'elsewhere' }));
    expect(refused().message).toContain('process 1 on elsewhere');
    const old = new Date(Date.now() - STALE_MS - 5_000);
    utimesSync(lockFile(), old, old);
    lockDataDir(dir)();
  });

  it('an unreadable lock file counts as held until it is stale', () => {
    writeFileSync(lockFile(), 'not json');
    expect(refused().message).toContain('(another process;');
    const old = new Date(Date.now() - STALE_MS - 5_000);
    utimesSync(lockFile(), old, old);
    lockDataDir(dir)();
  });
});

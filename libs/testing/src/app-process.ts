import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** Builds `dist/` once per test file (all apps compile together). */
export function buildDist(): void {
  execFileSync('npx', ['nest', 'build', 'standalone'], { cwd: ROOT, stdio: 'pipe' });
}

/** One app of the deployment running as its own OS process, from the built `dist/`. */
export interface AppProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code, or the signal name when it ended by a signal. */
  exited(): Promise<number | string | null>;
  kill(signal?: NodeJS.Signals): Promise<number | string | null>;
}

export function startAppProcess(
  app: 'standalone' | 'gateway' | 'retriever' | 'assembler' | 'rewriter' | 'extractor',
  env: Record<string, string>,
): AppProcess {
  let out = '';
  const child = spawn(process.execPath, [join(ROOT, `dist/apps/${app}/src/main.js`)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = () =>
    new Promise<number | string | null>((r) => {
      const done = child.exitCode ?? child.signalCode;
      if (done !== null) r(done);
      else child.on('exit', (code, signal) => r(code ?? signal));
    });
  return { child, output: () => out, exited, kill: (signal = 'SIGTERM') => (child.kill(signal), exited()) };
}

/**
 * Waits until `GET {url}/ready` answers 200: Redis and the store up and a worker on every queue in use,
 * so a suite of separate processes never starts while a worker process is still booting.
 */
export function waitReady(url: string, ms = 90000): Promise<void> {
  return waitHealthy(url, ms, '/ready');
}

/** Waits until `GET {url}/health` answers 200. */
export async function waitHealthy(url: string, ms = 45000, path = '/health'): Promise<void> {
  const until = Date.now() + ms;
  let last = 'none';
  while (Date.now() < until) {
    try {
      const r = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) });
      if (r.ok) return;
      last = (await r.text()).slice(0, 500);
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url}${path} did not answer 200 within ${ms} ms (last answer: ${last})`);
}

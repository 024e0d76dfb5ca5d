import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { eventually } from './eventually';
import { freePort } from './free-port';
import { requestTo, TestRequest } from './http-request';

const ROOT = resolve(__dirname, '../../..');
/** What `dist/` was built from (buildDist); beside the output, so a fresh checkout has none. */
const STAMP = join(ROOT, 'dist', '.build-sources');
const BUILD_LOCK = join(ROOT, 'node_modules', '.cache', 'muninn-build.lock');
const BUILD_LOCK_STALE_MS = 10 * 60_000;
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'];

/**
 * Builds `dist/` (all apps compile together) unless it was built from the sources as they are: each
 * suite that runs the apps as processes asks for it, and a build takes tens of seconds on 2 cores.
 * The sources are compared by path, size and modification time, so any edit rebuilds. Jest runs suites
 * in two workers: the first to find `dist/` out of date builds it under a lock, and the other waits for
 * that build instead of compiling into the same folder at once.
 */
export function buildDist(): void {
  if (builtFrom(sourcesDigest())) return;
  withBuildLock(() => {
    const sources = sourcesDigest();
    if (builtFrom(sources)) return; // built by another worker while this one waited
    execFileSync('npx', ['nest', 'build', 'standalone'], { cwd: ROOT, stdio: 'pipe' });
    writeFileSync(STAMP, sources);
  });
}

const builtFrom = (sources: string) => existsSync(STAMP) && readFileSync(STAMP, 'utf8') === sources;

/** A lock taken by making a folder (atomic); one older than a build could take is a dead worker's. */
function withBuildLock(build: () => void): void {
  mkdirSync(dirname(BUILD_LOCK), { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > BUILD_LOCK_STALE_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
      Atomics.wait(pause, 0, 0, 250); // buildDist is synchronous (suites call it in beforeAll)
    }
  }
  try {
    build();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

function sourcesDigest(): string {
  const hash = createHash('sha256');
  const files = [
    ...BUILD_INPUTS,
    ...['apps', 'libs'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)),
    ),
  ].sort();
  for (const f of files) {
    const st = statSync(join(ROOT, f));
    if (st.isFile()) hash.update(`${f}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** One app of the deployment running as its own OS process, from the built `dist/`. */
export interface AppProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code, or the signal name when it ended by a signal. */
  exited(): Promise<number | string | null>;
  kill(signal?: NodeJS.Signals): Promise<number | string | null>;
}

/**
 * Starts `app` from `dist/`; `wrapper` runs it under another command (`['prlimit', '--nofile=300']`: a
 * process limit the suite sets).
 */
export function startAppProcess(
  app: 'standalone' | 'gateway' | 'retriever' | 'assembler' | 'rewriter' | 'extractor',
  env: Record<string, string>,
  wrapper: string[] = [],
): AppProcess {
  let out = '';
  const command = [...wrapper, process.execPath, join(ROOT, `dist/apps/${app}/src/main.js`)];
  const child = spawn(command[0]!, command.slice(1), {
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

/** An app process serving HTTP on its own port, healthy, with a request function to it. */
export interface ServingProcess {
  proc: AppProcess;
  url: string;
  request: TestRequest;
}

/** Starts `app` (one that serves HTTP) on a free port with `env` and waits until it is healthy. */
export async function startServing(
  app: 'standalone' | 'gateway',
  env: Record<string, string>,
): Promise<ServingProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startAppProcess(app, { HOST: '127.0.0.1', ...env, PORT: String(port) });
  try {
    await waitHealthy(url);
  } catch (err) {
    await proc.kill('SIGKILL');
    throw new Error(`${(err as Error).message}; its output:\n${proc.output().slice(-2000)}`, { cause: err });
  }
  return { proc, url, request: requestTo(url) };
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

/**
 * Waits until the gateway at `url` sees a consumer on each of `queues`: `/ready` stays 503 in a deployment without
 * an assembler, so a suite of a gateway and a retriever waits for the retriever's workers this way.
 */
export async function waitConsumers(url: string, queues: string[], ms = 90_000): Promise<void> {
  await eventually(
    async () => {
      const ready = (await (await fetch(`${url}/ready`)).json()) as { consumers: Record<string, number> };
      return queues.every((q) => ready.consumers[q] > 0);
    },
    { ms, pollMs: 250, retryErrors: true },
  );
}

import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'dist/apps/standalone/src/main.js');

/** Runs the built `npm start` entrypoint as a real process. */
function run(env: Record<string, string>): ChildProcess & { out: () => string } {
  let out = '';
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  return Object.assign(child, { out: () => out });
}

/** Exit code, or the signal name when the process ended by re-raising one (Nest's shutdown hooks do). */
function exited(child: ChildProcess): Promise<number | string | null> {
  const done = () => child.exitCode ?? child.signalCode;
  return new Promise((r) => (done() !== null ? r(done()) : child.on('exit', (code, signal) => r(code ?? signal))));
}

async function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });
}

async function waitHealthy(url: string, ms = 45000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become healthy`);
}

describe('the built server as a process (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-proc-'));

  beforeAll(() => {
    execFileSync('npx', ['nest', 'build', 'standalone'], { cwd: ROOT, stdio: 'pipe' });
  }, 180000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exits with one clear line when Redis cannot be reached', async () => {
    const child = run({ REDIS_URL: 'redis://127.0.0.1:1', MUNINN_DATA_DIR: dataDir });
    expect(await exited(child)).toBe(1);
    const lines = child.out().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^muninn: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*redis-server/);
  });

  it('refuses a bad configuration value, naming the variable', async () => {
    const child = run({ PORT: 'eighty', MUNINN_TRANSPORT: 'carrier-pigeon', MUNINN_DATA_DIR: dataDir });
    expect(await exited(child)).toBe(1);
    expect(child.out()).toContain('PORT');
    expect(child.out()).toContain('MUNINN_TRANSPORT');
    expect(child.out()).not.toContain('    at ');
  });

  it('serves on the configured port, and keeps data across a restart (embedded store on disk)', async () => {
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', REDIS_URL: process.env.REDIS_URL ?? '', MUNINN_DATA_DIR: dataDir, MUNINN_QUEUE_PREFIX: `proc-${port}` };
    const url = `http://127.0.0.1:${port}`;
    let child = run(env);
    try {
      await waitHealthy(url).catch((err: Error) => {
        throw new Error(`${err.message}: ${child.out()}`);
      });
      const w = await fetch(`${url}/api/v1/content/write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri: 'viking://~/memories/entities/kept.md', content: 'survives restarts', mode: 'create', wait: true }),
      });
      expect(w.status).toBe(200);
      child.kill('SIGTERM');
      // Graceful: shutdown hooks close workers and the store, then re-raise SIGTERM.
      expect(await exited(child)).toBe('SIGTERM');
      child = run(env);
      await waitHealthy(url);
      const r = await fetch(`${url}/api/v1/content/read?uri=viking://~/memories/entities/kept.md`);
      expect(await r.json()).toEqual({ status: 'ok', result: 'survives restarts' });
      const docs = await fetch(`${url}/docs`);
      expect(docs.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  }, 120000);
});

import { ChildProcess, spawn } from 'node:child_process';
import { pingOnce } from './redis-server';

/**
 * A redis-server that a fault test may kill and restart on the same port (never the shared one).
 * `start()` resolves once it answers PING; `kill()` once the process has exited, so a restart never
 * races the old process for the port. The server keeps nothing on disk: a restart comes back empty.
 */
export class OwnRedis {
  private child: ChildProcess | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      if (child.exitCode !== null) throw new Error(`redis-server on port ${this.port} exited with ${child.exitCode}`);
      if (await pingOnce(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${this.port} did not answer PING`);
  }

  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
  }
}

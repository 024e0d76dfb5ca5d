import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/**
 * A store-to-queue relay loop (the write outbox, the session commit tasks): one pass every
 * `intervalMs`, never two at once, stopped and awaited at shutdown. A failing pass is logged when the
 * relay starts failing and when it recovers, not on every tick, so a long Redis or store outage cannot
 * flood the logs (docs/operations.md).
 */
export abstract class PeriodicRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failing = false;

  protected constructor(
    private readonly label: string,
    private readonly intervalMs: number,
  ) {
    this.logger = new Logger(label);
  }

  /** One pass over what is due; throws when it could not finish (the next tick retries). */
  protected abstract relay(): Promise<void>;

  /** False once shutdown began: a long pass stops between batches. */
  protected get active(): boolean {
    return this.timer !== null;
  }

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass now (also called by tests), or the pass already under way. */
  tick(): Promise<void> {
    if (this.running || !this.timer) return this.running ?? Promise.resolve();
    this.running = this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    try {
      await this.relay();
      if (this.failing) this.logger.log(`${this.label} resumed`);
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn(`${this.label} paused: ${(err as Error).message}`);
      this.failing = true;
    }
  }
}

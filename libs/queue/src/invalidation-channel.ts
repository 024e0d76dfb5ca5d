import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';

/**
 * A Redis pub/sub channel that tells every process of a deployment to forget what it cached
 * (docs/limits-and-security.md, "Keys and roles" and "Per-account limits"). Messages published while a
 * process's subscription was down are lost, so a subscriber that reconnects calls `onReset` (forget
 * everything) instead; a failed publish leaves the other processes their cache's own time limit.
 */
export class InvalidationChannel {
  private readonly log: Logger;
  private subscriber: Redis | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly name: string,
    private readonly onMessage: (message: string) => void,
    private readonly onReset: () => void,
  ) {
    this.log = new Logger(`InvalidationChannel ${name}`);
  }

  /** Subscribes on a connection of its own (a subscribed client can do nothing else); boot never waits for it. */
  start(): void {
    const sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber = sub;
    let connectedBefore = false;
    sub.on('ready', () => {
      if (connectedBefore) this.onReset();
      connectedBefore = true;
    });
    sub.on('error', () => undefined); // the shared client's watcher reports Redis outages once
    sub.on('message', (_channel: string, message: string) => this.onMessage(message));
    sub.subscribe(this.name).catch((err: Error) => this.log.warn(`subscribe: ${err.message}`));
  }

  /** Tells the other processes; a failure is logged, not thrown (the change itself is already made). */
  async publish(message: string): Promise<void> {
    await this.redis.publish(this.name, message).catch((err: Error) => {
      this.log.warn(`not published (other processes expire it on their own): ${err.message}`);
    });
  }

  stop(): void {
    this.subscriber?.disconnect();
    this.subscriber = null;
  }
}

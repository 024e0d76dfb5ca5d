import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';

const RETRY_MS = 500;

// Refresh our claim, or take the key back if it expired (Redis restarted empty); report whose it is.
const REFRESH = `local v = redis.call('GET', KEYS[1])
if v == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return ARGV[1] end
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Raised at boot when another deployment's processes hold this Redis prefix. */
export class DeploymentConflictError extends Error {}

/**
 * One deployment per queue prefix (docs/operations.md, "One deployment per queue prefix"). Two
 * deployments on one Redis with the same `MUNINN_QUEUE_PREFIX` share their queues: the other's
 * retrievers answer this one's finds from their own store, so searches come back empty or, worse, with
 * the other deployment's memories. Every process with a store claims `<prefix>:deployment` for its
 * store's id before any worker starts, keeps the claim alive, and refuses to start while another id
 * holds it (after waiting out a crashed holder's claim).
 */
export class DeploymentFence {
  private readonly logger = new Logger(DeploymentFence.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly id: string,
    /** How long a claim lives without a heartbeat (`MUNINN_QUEUE_FENCE_TTL_MS`): a crashed deployment frees its prefix after it. */
    private readonly ttlMs: number,
  ) {}

  /** Claims the prefix, waiting up to one TTL for another holder to go; then keeps it alive. */
  async claim(describe: string): Promise<void> {
    const deadline = Date.now() + this.ttlMs + RETRY_MS;
    for (;;) {
      let holder: string | null;
      try {
        holder = await this.refresh();
      } catch (err) {
        // Redis away at boot: the workers wait for it anyway; the heartbeat claims once it is back.
        this.logger.warn(`cannot check the queue prefix ${describe}: ${(err as Error).message}`);
        break;
      }
      if (holder === this.id) break;
      if (Date.now() >= deadline) {
        throw new DeploymentConflictError(
          `muninn: the queue prefix ${describe} is in use by another Muninn deployment (another store); ` +
            `stop it or give this one its own MUNINN_QUEUE_PREFIX`,
        );
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
    this.timer = setInterval(() => void this.beat(describe), Math.max(1000, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.redis.eval(RELEASE, 1, this.key, this.id).catch(() => undefined);
  }

  private async refresh(): Promise<string | null> {
    return (await this.redis.eval(REFRESH, 1, this.key, this.id, String(this.ttlMs))) as string | null;
  }

  private async beat(describe: string): Promise<void> {
    const holder = await this.refresh().catch(() => this.id);
    // Only after our claim lapsed (a long Redis outage) can another deployment have taken it: say so loudly.
    if (holder !== this.id) this.logger.error(`the queue prefix ${describe} was taken by another deployment`);
  }
}

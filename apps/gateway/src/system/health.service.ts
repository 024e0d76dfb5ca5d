import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { JobBus, REDIS, withTimeout } from '@app/queue';
import { Db, STORE_DB } from '@app/store';

const MUNINN_VERSION = '0.1.0';

export interface HealthReport {
  status: 'ok' | 'degraded';
  healthy: boolean;
  version: string;
  auth_mode: 'api_key' | 'dev';
  checks: { redis: 'up' | 'down' | 'not_used'; store: 'up' | 'down' };
  store_kind: Db['kind'];
  transport: AppConfig['queues']['transport'];
}

export interface ReadinessReport {
  /** `ready` or `not_ready`, the body plugins probe for. */
  status: 'ready' | 'not_ready';
  ready: boolean;
  checks: HealthReport['checks'];
  /** Workers connected per queue this deployment needs; a queue at 0 would leave requests unanswered. */
  consumers: Record<string, number>;
  /** Needed queues with no worker. */
  missing: string[];
}

/** Liveness (`/health`) and readiness (`/ready`); see docs/operations.md "Health and readiness". */
@Injectable()
export class HealthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(STORE_DB) private readonly db: Db,
    private readonly bus: JobBus,
  ) {}

  /**
   * Ready to serve: Redis and the store answer, and every queue this configuration uses has a worker
   * (the rewriter's queues only when a planner model is configured; the extractor's always, since
   * every session commit and idle commit is one of its jobs).
   */
  async readiness(): Promise<ReadinessReport> {
    const [redis, store] = await Promise.all([this.pingRedis(), this.pingStore()]);
    const none: Record<string, number> = {};
    const consumers = redis === 'down' ? none : await withTimeout(this.bus.consumers(), 2000).catch(() => none);
    const missing = this.neededQueues().filter((q) => !(consumers[q] > 0));
    const ready = redis !== 'down' && store === 'up' && missing.length === 0;
    return { status: ready ? 'ready' : 'not_ready', ready, checks: { redis, store }, consumers, missing };
  }

  private neededQueues(): QueueName[] {
    const needed = [
      QueueName.Find,
      QueueName.Index,
      QueueName.Sidecar,
      QueueName.Scan,
      QueueName.Assemble,
      QueueName.Extract,
      QueueName.SessionIdle,
      QueueName.SessionExtract,
    ];
    const llm = this.config.llm;
    if (llm.baseUrl && (llm.model || llm.queryPlannerModel)) needed.push(QueueName.Expand, QueueName.Digest);
    return needed;
  }

  async report(): Promise<HealthReport> {
    const [redis, store] = await Promise.all([this.pingRedis(), this.pingStore()]);
    const healthy = redis !== 'down' && store === 'up';
    return {
      status: healthy ? 'ok' : 'degraded',
      healthy,
      version: MUNINN_VERSION,
      auth_mode: this.config.auth.mode,
      checks: { redis, store },
      store_kind: this.db.kind,
      transport: this.config.queues.transport,
    };
  }

  private async pingRedis(): Promise<'up' | 'down' | 'not_used'> {
    if (!this.redis) return 'not_used';
    return withTimeout(this.redis.ping(), 1000).then(
      () => 'up' as const,
      () => 'down' as const,
    );
  }

  private async pingStore(): Promise<'up' | 'down'> {
    return withTimeout(this.db.ping(), 2000).then(
      () => 'up' as const,
      () => 'down' as const,
    );
  }
}

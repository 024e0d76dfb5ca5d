import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown, Provider } from '@nestjs/common';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { AppConfig } from '@app/config';
import { InMemoryLedgerStore } from '@app/kernel';
import { DEPLOYMENT_ID, QueueName, WORK_ACCOUNT } from '@app/contracts';
import { DeploymentFence } from './deployment-fence';
import { BullJobBus } from './bull-job-bus';
import { FairOrder } from './fair-order';
import { ModelBudget } from './model-budget';
import { InProcessJobBus } from './in-process-job-bus';
import { JobBus } from './job-bus.port';
import { currentAccountId } from './job-context';
import { JobWithdrawals } from './job-withdrawals';
import { eventStreamLength } from './job-options';
import { QUEUE_CLIENTS } from './queue-clients';
import { redisOptions, redisRetryStrategy } from './redis-connection';
import { watchRedisClient } from './redis-error-log';
import { RedisLedgerStore } from './redis-ledger-store';
import { InMemoryQueueActivity, QueueActivity, RedisQueueActivity } from './queue-activity';

/** DI token of the shared ioredis client (ledger, health); null with the in-process transport. */
export const REDIS = Symbol('REDIS');
/** DI token of the dedup-ledger {@link LedgerStore}: Redis, or in memory with the in-process transport. */
export const LEDGER_STORE = Symbol('LEDGER_STORE');

const ALL_QUEUES = Object.values(QueueName);
/** What either transport's module provides to the apps (BullMQ's adds its BullModule). */
const EXPORTED = [
  JobBus,
  InProcessJobBus,
  REDIS,
  LEDGER_STORE,
  QueueActivity,
  ModelBudget,
  JobWithdrawals,
  WORK_ACCOUNT,
  ...QUEUE_CLIENTS,
];
/** What both transports provide alike. */
const SHARED_PROVIDERS: Provider[] = [{ provide: WORK_ACCOUNT, useValue: currentAccountId }, ...QUEUE_CLIENTS];
const cache = new WeakMap<AppConfig, DynamicModule>();

@Global()
@Module({})
export class QueueModule implements OnApplicationShutdown {
  constructor(
    @Inject(JobBus) private readonly bus: JobBus,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(DeploymentFence) private readonly fence: DeploymentFence | null,
  ) {}

  /**
   * The job transport chosen by config. Memoised per config object so the standalone runner, which
   * imports every app's module, gets one bus and one set of queues.
   */
  static forRoot(config: AppConfig): DynamicModule {
    const hit = cache.get(config);
    if (hit) return hit;
    const mod = config.queues.transport === 'inprocess' ? inProcess(config) : bullmq(config);
    cache.set(config, mod);
    return mod;
  }

  async onApplicationShutdown() {
    if (this.bus instanceof BullJobBus) await this.bus.close();
    await this.fence?.release();
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/** The deployment's per-account model budget (docs/limits-and-security.md, "Model budget"). */
function modelBudget(config: AppConfig, redis: Redis | null): ModelBudget {
  return new ModelBudget(config.queues.prefix, redis, config.llm.breakerShared);
}

function failureBounds(config: AppConfig) {
  return { kept: config.queues.failuresKept, maxChars: config.queues.failureMaxChars };
}

function inProcess(config: AppConfig): DynamicModule {
  const bus = new InProcessJobBus();
  return {
    module: QueueModule,
    global: true,
    providers: [
      { provide: JobBus, useValue: bus },
      { provide: InProcessJobBus, useValue: bus },
      { provide: REDIS, useValue: null },
      { provide: ModelBudget, useValue: modelBudget(config, null) },
      { provide: DeploymentFence, useValue: null },
      { provide: JobWithdrawals, useValue: null },
      { provide: LEDGER_STORE, useValue: new InMemoryLedgerStore() },
      { provide: QueueActivity, useValue: new InMemoryQueueActivity(failureBounds(config)) },
      ...SHARED_PROVIDERS,
    ],
    exports: EXPORTED,
  };
}

/**
 * Connection options per role (docs/operations.md "Redis outages"). Every client reconnects forever
 * with {@link redisRetryStrategy}. Queues and workers share BullMQ's connection settings (@nestjs/bullmq
 * builds each worker from its queue's options), so they keep the offline queue and retry commands
 * without limit: workers resume by themselves when Redis returns. Producers still fail fast, because
 * {@link BullJobBus} refuses to add while its connection is not ready. The shared client (health,
 * ledger) has no offline queue and one retry per command, so it answers at once during an outage.
 */
function connections(config: AppConfig) {
  const base = { ...redisOptions(config.redis.url), retryStrategy: redisRetryStrategy };
  return {
    producer: { ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1 },
    blocking: { ...base, enableOfflineQueue: true, maxRetriesPerRequest: null },
  };
}

function bullmq(config: AppConfig): DynamicModule {
  const conn = connections(config);
  const prefix = config.queues.prefix;
  const busProvider: Provider = {
    provide: JobBus,
    inject: [REDIS, JobWithdrawals, ...ALL_QUEUES.map((q) => getQueueToken(q))],
    useFactory: (redis: Redis, withdrawals: JobWithdrawals, ...queues: Queue[]) => {
      queues.forEach((q, i) => watchRedisClient(q, `queue ${ALL_QUEUES[i]}`));
      const windowMs = config.queues.fairWindowMs;
      return new BullJobBus(
        new Map(ALL_QUEUES.map((q, i) => [q, queues[i]])),
        (q, lastEventId) =>
          watchRedisClient(new QueueEvents(q, { connection: conn.blocking, prefix, lastEventId }), `events ${q}`),
        windowMs > 0
          ? new FairOrder(redis, prefix, windowMs, { extractTokens: config.queues.fairExtractTokens })
          : null,
        withdrawals,
      );
    },
  };
  return {
    module: QueueModule,
    global: true,
    imports: [
      BullModule.forRoot({ connection: conn.blocking, prefix }),
      BullModule.registerQueue(
        ...ALL_QUEUES.map((name) => ({ name, streams: { events: { maxLen: eventStreamLength(name) } } })),
      ),
    ],
    providers: [
      busProvider,
      { provide: InProcessJobBus, useValue: null },
      {
        provide: REDIS,
        useFactory: () => watchRedisClient(new Redis({ ...conn.producer, lazyConnect: false }), 'shared client'),
      },
      { provide: LEDGER_STORE, inject: [REDIS], useFactory: (redis: Redis) => new RedisLedgerStore(redis) },
      { provide: ModelBudget, inject: [REDIS], useFactory: (redis: Redis) => modelBudget(config, redis) },
      { provide: JobWithdrawals, inject: [REDIS], useFactory: (redis: Redis) => new JobWithdrawals(redis, prefix) },
      {
        // Resolved while providers are built, before any worker starts: a conflicting deployment never consumes a job.
        provide: DeploymentFence,
        inject: [REDIS, { token: DEPLOYMENT_ID, optional: true }],
        useFactory: async (redis: Redis, id: string | null | undefined) => {
          if (!id) return null;
          const fence = new DeploymentFence(redis, `${prefix}:deployment`, id, config.queues.fenceTtlMs);
          const { host, port, db } = redisOptions(config.redis.url);
          await fence.claim(`'${prefix}' on Redis ${host}:${port}/${db}`);
          return fence;
        },
      },
      {
        provide: QueueActivity,
        inject: [REDIS],
        useFactory: (redis: Redis) => new RedisQueueActivity(redis, prefix, failureBounds(config)),
      },
      ...SHARED_PROVIDERS,
    ],
    exports: [...EXPORTED, BullModule],
  };
}

import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown, Provider } from '@nestjs/common';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { AppConfig } from '@app/config';
import { InMemoryLedgerStore } from '@app/kernel';
import { QueueName } from '@app/contracts';
import { BullJobBus } from './bull-job-bus';
import { InProcessJobBus } from './in-process-job-bus';
import { JobBus } from './job-bus.port';
import { QUEUE_CLIENTS } from './queue-clients';
import { redisOptions } from './redis-connection';
import { RedisLedgerStore } from './redis-ledger-store';

/** DI token of the shared ioredis client (ledger, health); null with the in-process transport. */
export const REDIS = Symbol('REDIS');
/** DI token of the dedup-ledger {@link LedgerStore}: Redis, or in memory with the in-process transport. */
export const LEDGER_STORE = Symbol('LEDGER_STORE');

const ALL_QUEUES = Object.values(QueueName);
const cache = new WeakMap<AppConfig, DynamicModule>();

@Global()
@Module({})
export class QueueModule implements OnApplicationShutdown {
  constructor(@Inject(JobBus) private readonly bus: JobBus, @Inject(REDIS) private readonly redis: Redis | null) {}

  /**
   * The job transport chosen by config. Memoised per config object so the standalone runner, which
   * imports every app's module, gets one bus and one set of queues.
   */
  static forRoot(config: AppConfig): DynamicModule {
    const hit = cache.get(config);
    if (hit) return hit;
    const mod = config.queues.transport === 'inprocess' ? inProcess() : bullmq(config);
    cache.set(config, mod);
    return mod;
  }

  async onApplicationShutdown() {
    if (this.bus instanceof BullJobBus) await this.bus.close();
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

function inProcess(): DynamicModule {
  const bus = new InProcessJobBus();
  return {
    module: QueueModule,
    global: true,
    providers: [
      { provide: JobBus, useValue: bus },
      { provide: InProcessJobBus, useValue: bus },
      { provide: REDIS, useValue: null },
      { provide: LEDGER_STORE, useValue: new InMemoryLedgerStore() },
      ...QUEUE_CLIENTS,
    ],
    exports: [JobBus, InProcessJobBus, REDIS, LEDGER_STORE, ...QUEUE_CLIENTS],
  };
}

function bullmq(config: AppConfig): DynamicModule {
  const connection = redisOptions(config.redis.url);
  const prefix = config.queues.prefix;
  const busProvider: Provider = {
    provide: JobBus,
    inject: ALL_QUEUES.map((q) => getQueueToken(q)),
    useFactory: (...queues: Queue[]) =>
      new BullJobBus(
        new Map(ALL_QUEUES.map((q, i) => [q, queues[i]])),
        (q) => new QueueEvents(q, { connection: { ...connection, maxRetriesPerRequest: null }, prefix }),
      ),
  };
  return {
    module: QueueModule,
    global: true,
    imports: [
      // Producers fail fast while Redis is away (mapped to 503) instead of queueing commands in memory;
      // workers need maxRetriesPerRequest null (BullMQ overrides anything else with a warning).
      BullModule.forRoot({ connection: { ...connection, enableOfflineQueue: false, maxRetriesPerRequest: null }, prefix }),
      BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
    ],
    providers: [
      busProvider,
      { provide: InProcessJobBus, useValue: null },
      { provide: REDIS, useFactory: () => new Redis({ ...connection, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) },
      { provide: LEDGER_STORE, inject: [REDIS], useFactory: (redis: Redis) => new RedisLedgerStore(redis) },
      ...QUEUE_CLIENTS,
    ],
    exports: [JobBus, InProcessJobBus, REDIS, LEDGER_STORE, BullModule, ...QUEUE_CLIENTS],
  };
}

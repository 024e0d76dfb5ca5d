import { Inject, Injectable, OnApplicationBootstrap, Provider, Type } from '@nestjs/common';
import { WorkerHost } from '@nestjs/bullmq';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { InProcessJobBus } from './in-process-job-bus';
import { watchRedisClient } from './redis-error-log';

/** What every processor exposes: the job handler, callable by BullMQ or by the in-process bus. */
export interface JobHandler {
  handle(data: unknown): Promise<unknown>;
}

/** Base of queue processors: sets concurrency from config (never from a decorator reading env). */
@Injectable()
export abstract class ConsumerHost extends WorkerHost implements JobHandler, OnApplicationBootstrap {
  @Inject(APP_CONFIG) protected readonly config!: AppConfig;

  abstract handle(data: unknown): Promise<unknown>;

  onApplicationBootstrap() {
    // In in-process mode BullMQ never creates a worker (and the getter would throw).
    if (this.config.queues.transport !== 'bullmq') return;
    this.worker.concurrency = this.config.queues.workerConcurrency;
    // Without a listener BullMQ prints every error of an outage to the console, unthrottled.
    watchRedisClient(this.worker, `worker ${this.worker.name}`);
  }
}

/** Registers `processor` as the in-process consumer of `queue` when that transport is active. */
export function inProcessConsumer(queue: QueueName, processor: Type<JobHandler>): Provider {
  const token = `inprocess-consumer:${queue}`;
  return {
    provide: token,
    inject: [processor, { token: InProcessJobBus, optional: true }],
    useFactory: (handler: JobHandler, bus: InProcessJobBus | null) => {
      bus?.register(queue, (d) => handler.handle(d));
      return true;
    },
  };
}

export * from './bull-job-bus';
export * from './consumer';
export * from './in-process-job-bus';
export * from './job-bus.port';
export * from './job-options';
export * from './queue.module';
export * from './redis-connection';
export * from './ensure-redis';

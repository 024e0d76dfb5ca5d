export * from './queues/queue-names';
export * from './queues/index-job';
export * from './queues/jobs';

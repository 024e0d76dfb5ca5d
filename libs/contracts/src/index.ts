export * from './queues/queue-names';
export * from './queues/rewrite-jobs';
export * from './queues/assemble-job';
export * from './queues/find-job';
export * from './queues/index-job';
export * from './queues/jobs';
export * from './queues/job-failure';
export * from './queues/pipeline';

export * from './llm.error';
export * from './llm-settings';
export * from './read-completion';
export * from './llm-client';
export * from './llm.module';

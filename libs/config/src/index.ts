export * from './app-config';
export * from './config.module';
export * from './env.dto';
export * from './load-config';
export * from './boot-config';

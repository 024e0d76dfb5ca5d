import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startTracing, startWorkerMetrics } from '@app/queue';
import { RetrieverModule } from './retriever.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'retriever');
  const logger = appLogger(config, 'retriever');
  const app = await NestFactory.createApplicationContext(RetrieverModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'retriever');
}

void main();

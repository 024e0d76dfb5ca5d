import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig, logLevels } from '@app/config';
import { ensureRedisReachable, startWorkerMetrics } from '@app/queue';
import { RetrieverModule } from './retriever.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  const app = await NestFactory.createApplicationContext(RetrieverModule.forRoot(config), { logger: logLevels(config.logLevel) });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'retriever');
}

void main();

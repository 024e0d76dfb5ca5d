import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, ModelBudget, startTracing, startWorkerMetrics } from '@app/queue';
import { RetrieverModule } from './retriever.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'retriever');
  const logger = appLogger(config, 'retriever');
  const app = await NestFactory.createApplicationContext(RetrieverModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  // Its query and index embeddings' calls and circuits (`call="embed"`, `"index_embed"`), beside Node's own figures.
  await startWorkerMetrics(config, 'retriever', (registry) => app.get(ModelBudget).metrics.registerOn(registry));
}

void main();

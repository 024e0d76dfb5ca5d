import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, ModelBudget, startTracing, startWorkerMetrics } from '@app/queue';
import { ExtractorModule } from './extractor.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'extractor');
  // The same JSON logger as every other process, so an operator's log pipeline parses the extractor too.
  const logger = appLogger(config, 'extractor');
  const app = await NestFactory.createApplicationContext(ExtractorModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'extractor', (registry) => app.get(ModelBudget).metrics.registerOn(registry));
}

void main();

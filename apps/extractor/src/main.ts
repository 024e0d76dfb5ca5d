import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig, logLevels } from '@app/config';
import { ensureRedisReachable, startWorkerMetrics } from '@app/queue';
import { ExtractorModule } from './extractor.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  const app = await NestFactory.createApplicationContext(ExtractorModule.forRoot(config), {
    logger: logLevels(config.logLevel),
  });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'extractor');
}

void main();

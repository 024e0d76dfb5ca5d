import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startTracing, startWorkerMetrics } from '@app/queue';
import { RewriterModule } from './rewriter.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'rewriter');
  const logger = appLogger(config, 'rewriter');
  const app = await NestFactory.createApplicationContext(RewriterModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'rewriter');
}

void main();

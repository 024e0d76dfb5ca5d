import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startWorkerMetrics } from '@app/queue';
import { RewriterModule } from './rewriter.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  const logger = appLogger(config, 'rewriter');
  const app = await NestFactory.createApplicationContext(RewriterModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'rewriter');
}

void main();

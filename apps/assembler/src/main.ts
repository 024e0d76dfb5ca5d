import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startTracing, startWorkerMetrics } from '@app/queue';
import { AssemblerModule } from './assembler.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'assembler');
  const logger = appLogger(config, 'assembler');
  const app = await NestFactory.createApplicationContext(AssemblerModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'assembler');
}

void main();

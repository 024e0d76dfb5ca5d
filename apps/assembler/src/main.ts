import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startWorkerMetrics } from '@app/queue';
import { AssemblerModule } from './assembler.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  const app = await NestFactory.createApplicationContext(AssemblerModule.forRoot(config), { logger: appLogger(config, 'assembler') });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'assembler');
}

void main();

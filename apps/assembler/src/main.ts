import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootConfig, logLevels } from '@app/config';
import { ensureRedisReachable, startWorkerMetrics } from '@app/queue';
import { AssemblerModule } from './assembler.module';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  const app = await NestFactory.createApplicationContext(AssemblerModule.forRoot(config), { logger: logLevels(config.logLevel) });
  app.enableShutdownHooks();
  await startWorkerMetrics(config, 'assembler');
}

void main();

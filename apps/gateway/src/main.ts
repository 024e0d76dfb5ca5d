import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startTracing } from '@app/queue';
import { GatewayModule } from './gateway.module';
import { configureHttpApp, createHttpAdapter, listenOrExit } from './http/configure-app';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'gateway');
  const logger = appLogger(config, 'gateway');
  const http = createHttpAdapter(config);
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config), http, { logger });
  configureHttpApp(app);
  await listenOrExit(app, config);
}

void main();

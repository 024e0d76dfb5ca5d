import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { bootConfig, logLevels } from '@app/config';
import { ensureRedisReachable } from '@app/queue';
import { GatewayModule } from './gateway.module';
import { configureHttpApp, createHttpAdapter } from './http/configure-app';

async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config), createHttpAdapter(config), { logger: logLevels(config.logLevel) });
  configureHttpApp(app);
  await app.listen(config.http.port, config.http.host);
}

void main();

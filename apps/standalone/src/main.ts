import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { bootConfig } from '@app/config';
import { appLogger, ensureRedisReachable, startTracing } from '@app/queue';
import { StandaloneModule } from './standalone.module';
import { configureHttpApp, createHttpAdapter, listenOrExit } from '../../gateway/src/http/configure-app';

/** `npm start`: every app in one process, same queues and code paths as the multi-process deployment. */
async function main() {
  const config = bootConfig();
  await ensureRedisReachable(config);
  startTracing(config, 'standalone');
  const app = await NestFactory.create<NestFastifyApplication>(
    StandaloneModule.forRoot(config),
    createHttpAdapter(config),
    {
      logger: appLogger(config, 'standalone'),
    },
  );
  configureHttpApp(app);
  await listenOrExit(app, config);
  process.stdout.write(`muninn: listening on http://${config.http.host}:${config.http.port} (docs at /docs)\n`);
}

void main();

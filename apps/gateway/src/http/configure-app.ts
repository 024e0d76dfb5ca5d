import type { IncomingMessage } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { AppConfig } from '@app/config';
import { MetricsService } from '../system/metrics.service';
import { mountQueueDashboard } from '../system/queue-dashboard';
import { ApiValidationPipe } from './api-validation.pipe';
import { DomainExceptionFilter } from './domain-exception.filter';
import { requestIdOf, trackRequests } from './request-id';

/** The Fastify adapter with our body limit. Fastify: ~5x Express throughput on this machine (dependencies.md §1). */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: false,
    genReqId: (req: IncomingMessage) => requestIdOf(req.headers['x-request-id']),
  });
}

/** Pipes, filter, Swagger, metrics hook and shutdown hooks: everything an HTTP app needs, in one place. */
export function configureHttpApp(app: NestFastifyApplication): NestFastifyApplication {
  const filter = new DomainExceptionFilter();
  app.useGlobalPipes(new ApiValidationPipe());
  app.useGlobalFilters(filter);
  app.enableShutdownHooks();
  // Nest routes Fastify's own errors (bad JSON, body too large) through the global filter as well.
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  trackRequests(fastify);
  const metrics = app.get(MetricsService);
  fastify.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions?.url ?? 'unmatched';
    metrics.observe(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  setupSwagger(app);
  mountQueueDashboard(app);
  return app;
}

function setupSwagger(app: INestApplication) {
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Muninn')
      .setDescription('Context server for AI agents: memories, resources and skills under viking:// URIs, assembled into bounded context blocks.')
      .setVersion('0.1.0')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api-key')
      .addBearerAuth()
      .addSecurityRequirements('api-key')
      .build(),
  );
  SwaggerModule.setup('docs', app, doc, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}

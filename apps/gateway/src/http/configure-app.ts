import type { IncomingMessage } from 'node:http';
import { INestApplication, Logger } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG, AppConfig } from '@app/config';
import { authenticateRequest } from '../auth/auth.guard';
import { IdentityService } from '../auth/identity.service';
import { MetricsService } from '../system/metrics.service';
import type { Identity } from '@app/kernel';
import { AdmissionService } from './admission.service';
import { mountQueueDashboard } from '../system/queue-dashboard';
import { ApiValidationPipe } from './api-validation.pipe';
import { envelopeClientError, envelopeFrameworkError, isHeadersTimeout } from './client-error';
import { DomainExceptionFilter, refusalLimit } from './domain-exception.filter';
import { applyBoundsToOpenApi, boundsCheckedElsewhere } from './request-bounds';
import { applyToolResultBoundsToOpenApi } from '../sessions/tool-results-openapi';
import { installRequestGate } from './request-gate';
import { NDJSON_TYPE } from './import-route';
import { applyImportBoundsToOpenApi } from '../admin/import-openapi';
import { applySlowClientBoundsToOpenApi } from './slow-clients-openapi';
import { installIdempotentReplies } from '../idempotency/idempotent-replies';
import { IdempotencyRepository } from '@app/store';
import { abandonSignal, requestIdOf, trackRequests } from './request-id';
import { trackRouteMethods } from './route-methods';
import { installSlowClientBounds, SlowClientLimit } from './slow-clients';
import { MCP_PATH } from './json-rpc-error';
import { routeOf } from './route-of';
import { connectionBound, FD_RESERVE, openFileLimit } from './connection-bound';

/** Node's default bound of a request's head (16 KiB): no path parameter can be longer. */
const MAX_PATH_PARAM_CHARS = 16 * 1024;

/** The Fastify adapter with our body limit. Fastify: ~5x Express throughput on this machine. */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    // Fastify's router refused a path parameter over 100 characters with a bare 414, so a session created
    // with a valid 128-character id could never be read. Any length passes the router now (the request line
    // is bounded by Node's header limit), and the request gate refuses an id over MUNINN_ID_MAX_CHARS with
    // a 400 naming it (request-bounds.ts). Under `routerOptions`: at the top level Fastify 5 prints a
    // deprecation warning (FSTDEP022) at every start.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_CHARS },
    trustProxy: false,
    clientErrorHandler: envelopeClientError,
    frameworkErrors: envelopeFrameworkError,
    genReqId: (req: IncomingMessage) => requestIdOf(req.headers['x-request-id']),
    // The request gate refuses these keys with their location (docs/limits-and-security.md, "Request
    // bounds") before any handler reads the body; Fastify's own refusal said only "not valid JSON".
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // Headers not in within the timeout: 408 (docs/limits-and-security.md, "Slow clients"). Node checks
    // every second, not its default 30 s, so the bound holds to about a second.
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: 1000 },
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
  trackRouteMethods(fastify);
  const metrics = app.get(MetricsService);
  const config = app.get<AppConfig>(APP_CONFIG);
  const identities = app.get(IdentityService);
  const admission = app.get(AdmissionService);
  admission.lanes.metrics.registerOn(metrics.registry);
  // Multipart bodies reach only the upload route (the gate refuses them elsewhere), as raw bytes the
  // upload service parses; the file bound plus room for the multipart framing.
  fastify.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: config.uploads.maxBytes + 64 * 1024 },
    (_req, body, done) => done(null, body),
  );
  // An account import's NDJSON body reaches its handler unread: the import streams it line by line,
  // bounding lines and bytes itself (the gate refuses the type on every other route).
  fastify.addContentTypeParser(NDJSON_TYPE, (_req, payload, done) => done(null, payload));
  // `application/…+json` (JSON:API, problem+json) is JSON too: the gate lets it through, so the parser must.
  fastify.addContentTypeParser(
    /^application\/[\w.-]+\+json\s*(;|$)/i,
    { parseAs: 'string' },
    fastify.getDefaultJsonParser('ignore', 'ignore'),
  );
  installRequestGate(fastify, {
    devMode: config.auth.mode === 'dev',
    bodyLimitBytes: config.http.bodyLimitBytes,
    importMaxBytes: config.store.import.maxBytes,
    limits: config.limits,
    authenticate: (req) => authenticateRequest(identities, req),
    admit: async (req, reply, bodyBytes) => {
      const caller = (req as unknown as { identity: Identity }).identity;
      await admission.consume(caller);
      const deadline = Date.now() + config.queues.requestDeadlineMs;
      // A request whose client goes away while it waits for a slot leaves its line: its body is not read yet, so
      // nothing of it, read or write, can run (docs/limits-and-security.md, "A client that goes away").
      const gone = abandonSignal(reply.raw);
      // A large body first waits for one of the account's large-body slots, before it is read, REST and MCP alike;
      // always before a request slot, so no request holds one lane while it waits for the other in the other order.
      const releaseBody = await admission.enterLargeBody(caller, bodyBytes, config.queues.requestDeadlineMs, gone);
      // MCP takes its request slots per tool call (a batch may carry many), in McpToolsService.
      const release = MCP_PATH.test(routeOf(req))
        ? () => undefined
        : await admission.enter(caller, deadline - Date.now(), gone).catch((err: unknown) => {
            releaseBody();
            throw err;
          });
      const releaseAll = () => {
        releaseBody();
        release();
      };
      // 'close' fires once the response is done or the client went away, whichever comes first.
      if (req.raw.destroyed) releaseAll();
      else reply.raw.once('close', releaseAll);
    },
    charge: (req, points) => admission.consume((req as unknown as { identity: Identity }).identity, points),
  });
  installSlowClientBounds(fastify, config.http);
  // Past this many connections a new one is closed as it arrives, so a flood of connections cannot take the
  // descriptors the store, Redis and the other tenants' connections need.
  const fdLimit = openFileLimit();
  const bound = connectionBound(config.http.maxConnections, fdLimit);
  if (bound.lowered) {
    new Logger('Http').warn(
      `MUNINN_HTTP_MAX_CONNECTIONS ${config.http.maxConnections} does not fit this process's open-file limit ` +
        `(${fdLimit}) beside ${FD_RESERVE} other descriptors: holding at most ${bound.max} connections ` +
        `(raise the limit, ulimit -n, to allow more)`,
    );
  }
  fastify.server.maxConnections = bound.max;
  fastify.server.on('drop', () => metrics.dropped());
  fastify.server.prependListener('clientError', (err: NodeJS.ErrnoException) => {
    if (isHeadersTimeout(err)) metrics.refused('headers_timeout' satisfies SlowClientLimit, 408);
  });
  installIdempotentReplies(fastify, app.get(IdempotencyRepository), (outcome) => metrics.idempotent(outcome));
  fastify.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions?.url ?? 'unmatched';
    metrics.observe(req.method, route, reply.statusCode, reply.elapsedTime / 1000, refusalLimit(reply));
    done();
  });
  setupSwagger(app, config);
  mountQueueDashboard(app);
  return app;
}

function setupSwagger(app: INestApplication, config: AppConfig) {
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Muninn')
      .setDescription(
        'Context server for AI agents: memories, resources and skills under viking:// URIs, assembled into bounded context blocks.',
      )
      .setVersion('0.1.0')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api-key')
      .addBearerAuth()
      .addSecurityRequirements('api-key')
      .build(),
  );
  applyBoundsToOpenApi(
    doc as unknown as Record<string, unknown>,
    config.limits,
    { 'Idempotency-Key': { maxChars: config.store.idempotency.keyMaxChars } },
    boundsCheckedElsewhere(config),
  );
  applyToolResultBoundsToOpenApi(doc as unknown as Record<string, unknown>, config);
  applyImportBoundsToOpenApi(doc as unknown as Record<string, unknown>, config);
  applySlowClientBoundsToOpenApi(doc as unknown as Record<string, unknown>, config);
  SwaggerModule.setup('docs', app, doc, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}

const REFUSED: Record<string, string> = { EADDRINUSE: 'address in use', EACCES: 'permission denied' };

/**
 * Listens on the configured address. When it cannot be had (taken, or a privileged port) the app is
 * closed first, so its workers stop and the embedded store's folder lock is released, and the process
 * exits with one line naming the address and the setting, not a stack trace.
 */
export async function listenOrExit(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const { host, port } = config.http;
  try {
    await app.listen(port, host);
  } catch (err) {
    const why = REFUSED[(err as NodeJS.ErrnoException).code ?? ''];
    if (!why) throw err;
    await app.close().catch(() => undefined);
    process.stderr.write(`muninn: cannot listen on ${host}:${port} (${why}); stop the other server or set PORT\n`);
    process.exit(1);
  }
}

import { Logger } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { AppConfig } from '@app/config';

/**
 * Serves `GET /metrics` (Prometheus text) for a worker process, which has no HTTP API of its own:
 * Node's default metrics, among them the event-loop delay (`nodejs_eventloop_lag_p99_seconds` and
 * friends), labelled with the app name, and what `register` adds (the extractor's model calls). Nothing starts unless `MUNINN_METRICS_PORT` is set. The
 * listener is unref'd: it never keeps a process alive that its shutdown hooks are ending.
 */
export async function startWorkerMetrics(
  config: AppConfig,
  app: string,
  register: (registry: Registry) => void = () => undefined,
): Promise<Server | null> {
  if (config.http.metricsPort === null) return null;
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  register(registry);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.metricsPort!, config.http.host, () => resolve());
  });
  server.unref();
  new Logger('WorkerMetrics').log(`${app} metrics on port ${(server.address() as AddressInfo).port}`);
  return server;
}

import { Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Db, QueryOptions, TransactionOptions } from './db.port';

/**
 * The store with one OpenTelemetry span per statement and per transaction (docs/operations.md
 * "Tracing"). Without a tracer provider (tracing off, the default) the API's spans are no-ops.
 * Span names carry no SQL text or parameters: those may hold tenant content.
 */
export function tracedDb(db: Db): Db {
  const tracer = trace.getTracer('muninn');
  const options = { kind: SpanKind.CLIENT, attributes: { 'db.system': db.kind } };
  const inSpan = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    tracer.startActiveSpan(name, options, async (span: Span) => {
      try {
        return await fn();
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    });
  return {
    kind: db.kind,
    query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions) {
      return inSpan('store query', () => db.query<T>(sql, params, opts));
    },
    transaction<R>(fn: (tx: Pick<Db, 'query' | 'kind'>) => Promise<R>, opts?: TransactionOptions) {
      return inSpan('store transaction', () => db.transaction(fn, opts));
    },
    exec: (sql: string) => db.exec(sql),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

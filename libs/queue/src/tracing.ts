import { context, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { AppConfig } from '@app/config';
import { setTraceparentSource } from './job-context';

const TRACER = 'muninn';

/**
 * Starts OpenTelemetry tracing for this process when `MUNINN_OTLP_TRACES_URL` is set (off by
 * default): spans go to that OTLP/HTTP (JSON) endpoint, named by service `muninn-<app>`, and every
 * job added from inside a span carries its `traceparent`, so one request's spans join up across
 * the gateway, the queue, the workers and the store (docs/operations.md "Tracing").
 */
export function startTracing(config: AppConfig, app: string): { shutdown(): Promise<void> } | null {
  if (!config.tracing.otlpTracesUrl) return null;
  const exporter = new OTLPTraceExporter({ url: config.tracing.otlpTracesUrl });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': `muninn-${app}` }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 500 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  setTraceparentSource(() => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    return carrier.traceparent;
  });
  return { shutdown: () => provider.shutdown() };
}

/** Runs `fn` in a new active span (a no-op span while tracing is off), ending it when `fn` settles. */
export function inSpan<T>(name: string, kind: SpanKind, fn: (span: Span) => Promise<T>, traceparent?: string) {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
  return trace.getTracer(TRACER).startActiveSpan(name, { kind }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

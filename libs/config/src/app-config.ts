/** The validated, typed configuration every process receives. */
export interface AppConfig {
  http: {
    port: number;
    host: string;
    bodyLimitBytes: number;
    /** Port of the /metrics listener of a worker process (retriever, assembler, rewriter); null: none. */
    metricsPort: number | null;
  };
  auth: { rootApiKey: string | null; mode: 'api_key' | 'dev' };
  redis: { url: string };
  store: { databaseUrl: string | null; dataDir: string; statementTimeoutMs: number };
  /** Bounds on a request's metadata filter (see docs/limits-and-security.md#filters). */
  filter: { maxNodes: number; maxDepth: number; maxPatternLength: number };
  queues: {
    transport: 'bullmq' | 'inprocess';
    prefix: string;
    workerConcurrency: number;
    requestDeadlineMs: number;
    writeWaitMs: number;
  };
  /** The write path: outbox relay and coalesced directory summaries (see docs/architecture.md#write-path). */
  indexing: { outboxGraceMs: number; outboxPollMs: number; sidecarIntervalMs: number };
  ledger: { ttlSeconds: number };
  embedding: { provider: 'local' | 'openai'; baseUrl: string | null; apiKey: string | null; model: string | null; dim: number | null };
  llm: {
    baseUrl: string | null;
    apiKey: string | null;
    model: string | null;
    queryPlannerModel: string | null;
    intentTimeoutMs: number;
    rewriteTimeoutMs: number;
    enableIntent: boolean;
  };
  logLevel: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  /** `json`: one JSON object per line (docs/operations.md "Logs"); `text`: Nest's console format. */
  logFormat: 'json' | 'text';
  /** OpenTelemetry (docs/operations.md "Tracing"): the OTLP/HTTP traces endpoint; null: tracing off. */
  tracing: { otlpTracesUrl: string | null };
}

import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { AppConfig } from './app-config';
import { EnvDto } from './env.dto';

/** Thrown when the environment is invalid; its message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((msg) =>
      msg.startsWith(e.property) ? `${msg} (got ${JSON.stringify(e.value)})` : `${e.property}: ${msg} (got ${JSON.stringify(e.value)})`,
    ),
  );
}

/** Parses and validates the environment once, into the nested typed config. */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const dto = plainToInstance(EnvDto, pickDeclared(env), { enableImplicitConversion: false });
  const errors = validateSync(dto, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length > 0) throw new ConfigError(describe(errors));
  const rootKey = dto.MUNINN_ROOT_API_KEY ?? null;
  const embedBase = dto.EMBEDDING_BASE_URL ?? null;
  return {
    http: {
      port: dto.PORT ?? 1933,
      host: dto.HOST ?? '0.0.0.0',
      bodyLimitBytes: dto.MUNINN_BODY_LIMIT_BYTES ?? 10 * 1024 * 1024,
      metricsPort: dto.MUNINN_METRICS_PORT ?? null,
    },
    auth: { rootApiKey: rootKey, mode: rootKey ? 'api_key' : 'dev' },
    redis: { url: dto.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    store: {
      databaseUrl: dto.DATABASE_URL ?? null,
      dataDir: dto.MUNINN_DATA_DIR ?? './.muninn',
      statementTimeoutMs: dto.MUNINN_STATEMENT_TIMEOUT_MS ?? 5000,
    },
    filter: {
      maxNodes: dto.MUNINN_FILTER_MAX_NODES ?? 500,
      maxDepth: dto.MUNINN_FILTER_MAX_DEPTH ?? 16,
      maxPatternLength: dto.MUNINN_FILTER_MAX_PATTERN_LENGTH ?? 256,
    },
    queues: {
      transport: dto.MUNINN_TRANSPORT ?? 'bullmq',
      prefix: dto.MUNINN_QUEUE_PREFIX ?? 'muninn',
      workerConcurrency: dto.MUNINN_WORKER_CONCURRENCY ?? 16,
      requestDeadlineMs: dto.MUNINN_REQUEST_DEADLINE_MS ?? 10000,
      writeWaitMs: dto.MUNINN_WRITE_WAIT_MS ?? 30000,
    },
    indexing: {
      outboxGraceMs: dto.MUNINN_OUTBOX_GRACE_MS ?? 10000,
      outboxPollMs: dto.MUNINN_OUTBOX_POLL_MS ?? 1000,
      sidecarIntervalMs: dto.MUNINN_SIDECAR_INTERVAL_MS ?? 500,
    },
    ledger: { ttlSeconds: dto.MUNINN_LEDGER_TTL_S ?? 7 * 24 * 3600 },
    embedding: {
      provider: embedBase ? 'openai' : 'local',
      baseUrl: embedBase,
      apiKey: dto.EMBEDDING_API_KEY ?? null,
      model: dto.EMBEDDING_MODEL ?? null,
      dim: dto.EMBEDDING_DIM ?? null,
    },
    llm: {
      baseUrl: dto.LLM_BASE_URL ?? null,
      apiKey: dto.LLM_API_KEY ?? null,
      model: dto.LLM_MODEL ?? null,
      queryPlannerModel: dto.QUERY_PLANNER_MODEL ?? dto.LLM_MODEL ?? null,
      intentTimeoutMs: Math.round((dto.RECALL_INTENT_TIMEOUT_S ?? 5) * 1000),
      rewriteTimeoutMs: Math.round((dto.RECALL_REWRITE_TIMEOUT_S ?? 30) * 1000),
      enableIntent: dto.RETRIEVAL_ENABLE_INTENT ?? true,
    },
    logLevel: dto.LOG_LEVEL ?? 'log',
    logFormat: dto.MUNINN_LOG_FORMAT ?? 'json',
    tracing: { otlpTracesUrl: dto.MUNINN_OTLP_TRACES_URL ?? null },
  };
}

const DECLARED = [
  'PORT', 'HOST', 'REDIS_URL', 'DATABASE_URL', 'MUNINN_DATA_DIR', 'MUNINN_ROOT_API_KEY', 'MUNINN_TRANSPORT',
  'MUNINN_QUEUE_PREFIX', 'MUNINN_REQUEST_DEADLINE_MS', 'MUNINN_WRITE_WAIT_MS', 'MUNINN_OUTBOX_GRACE_MS',
  'MUNINN_OUTBOX_POLL_MS', 'MUNINN_SIDECAR_INTERVAL_MS', 'MUNINN_BODY_LIMIT_BYTES',
  'MUNINN_WORKER_CONCURRENCY', 'MUNINN_LEDGER_TTL_S', 'LOG_LEVEL', 'EMBEDDING_BASE_URL',
  'EMBEDDING_API_KEY', 'EMBEDDING_MODEL', 'EMBEDDING_DIM', 'LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL',
  'QUERY_PLANNER_MODEL', 'RECALL_INTENT_TIMEOUT_S', 'RECALL_REWRITE_TIMEOUT_S', 'RETRIEVAL_ENABLE_INTENT',
  'MUNINN_STATEMENT_TIMEOUT_MS', 'MUNINN_FILTER_MAX_NODES', 'MUNINN_FILTER_MAX_DEPTH',
  'MUNINN_FILTER_MAX_PATTERN_LENGTH', 'MUNINN_METRICS_PORT',
  'MUNINN_LOG_FORMAT', 'MUNINN_OTLP_TRACES_URL',
] as const;

function pickDeclared(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of DECLARED) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

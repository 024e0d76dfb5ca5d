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
      msg.startsWith(e.property)
        ? `${msg} (got ${JSON.stringify(e.value)})`
        : `${e.property}: ${msg} (got ${JSON.stringify(e.value)})`,
    ),
  );
}

/** Bytes of an export line besides its file's body: the URI, tags, times and field names (docs/limits-and-security.md). */
const LINE_FIELDS_BYTES = 16 * 1024;

/** Parses and validates the environment once, into the nested typed config. */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const dto = plainToInstance(EnvDto, pickDeclared(env), { enableImplicitConversion: false });
  const errors = validateSync(dto, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length > 0) throw new ConfigError(describe(errors));
  // A filter nests two JSON levels per filter level (the node and its conds list), inside the body.
  const filterDepth = dto.MUNINN_FILTER_MAX_DEPTH ?? 16;
  if ((dto.MUNINN_BODY_MAX_DEPTH ?? 64) < 2 * filterDepth + 4) {
    throw new ConfigError([
      `MUNINN_BODY_MAX_DEPTH must be at least 2 × MUNINN_FILTER_MAX_DEPTH + 4 (${2 * filterDepth + 4})`,
    ]);
  }
  // A file's export line (its body as JSON writes it, which the file bound counts, and the line's other fields: a URI
  // of at most 2048 characters, tags) must fit the import's line bound. Unset, the file bound follows a lowered line
  // bound; set, a pair that cannot hold is refused.
  const importLineBytes = dto.MUNINN_IMPORT_MAX_LINE_BYTES ?? 64 * 1024 * 1024;
  const fileMaxBytes = dto.MUNINN_FILE_MAX_BYTES ?? Math.min(32 * 1024 * 1024, importLineBytes - LINE_FIELDS_BYTES);
  if (fileMaxBytes + LINE_FIELDS_BYTES > importLineBytes) {
    throw new ConfigError([
      `MUNINN_FILE_MAX_BYTES (${fileMaxBytes}) must leave ${LINE_FIELDS_BYTES} bytes of MUNINN_IMPORT_MAX_LINE_BYTES ` +
        `(${importLineBytes}) for a line's other fields: a file at the bound must export as a line the import reads`,
    ]);
  }
  const rootKey = dto.MUNINN_ROOT_API_KEY ?? null;
  const embedBase = dto.EMBEDDING_BASE_URL ?? null;
  return {
    http: {
      port: dto.PORT ?? 1933,
      host: dto.HOST ?? '0.0.0.0',
      bodyLimitBytes: dto.MUNINN_BODY_LIMIT_BYTES ?? 10 * 1024 * 1024,
      headersTimeoutMs: (dto.MUNINN_HTTP_HEADERS_TIMEOUT_S ?? 15) * 1000,
      bodyTimeoutMs: (dto.MUNINN_HTTP_BODY_TIMEOUT_S ?? 60) * 1000,
      bodyMinRate: dto.MUNINN_HTTP_BODY_MIN_RATE ?? 16_384,
      sendIdleMs: (dto.MUNINN_HTTP_SEND_IDLE_S ?? 60) * 1000,
      maxConnections: dto.MUNINN_HTTP_MAX_CONNECTIONS ?? 10_000,
      metricsPort: dto.MUNINN_METRICS_PORT ?? null,
    },
    auth: {
      rootApiKey: rootKey,
      mode: rootKey ? 'api_key' : 'dev',
      keySecret: dto.MUNINN_KEY_SECRET ?? null,
      seedMinLength: dto.MUNINN_KEY_SEED_MIN_LENGTH ?? 16,
      keyCacheTtlMs: dto.MUNINN_KEY_CACHE_TTL_MS ?? 10_000,
      keyCacheMaxEntries: dto.MUNINN_KEY_CACHE_MAX_ENTRIES ?? 10_000,
    },
    redis: { url: dto.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    store: {
      databaseUrl: dto.DATABASE_URL ?? null,
      dataDir: dto.MUNINN_DATA_DIR ?? './.muninn',
      statementTimeoutMs: dto.MUNINN_STATEMENT_TIMEOUT_MS ?? 5000,
      quota: {
        maxNodes: dto.MUNINN_ACCOUNT_MAX_NODES ?? 1_000_000,
        maxContentBytes: dto.MUNINN_ACCOUNT_MAX_CONTENT_BYTES ?? 1024 * 1024 * 1024,
        maxSessions: dto.MUNINN_ACCOUNT_MAX_SESSIONS ?? 100_000,
        maxUsers: dto.MUNINN_ACCOUNT_MAX_USERS ?? 10_000,
      },
      auditRetentionDays: dto.MUNINN_AUDIT_RETENTION_DAYS ?? 365,
      idempotency: {
        keyMaxChars: dto.MUNINN_IDEMPOTENCY_KEY_MAX_CHARS ?? 255,
        ttlS: dto.MUNINN_IDEMPOTENCY_TTL_S ?? 86_400,
        leaseS: dto.MUNINN_IDEMPOTENCY_LEASE_S ?? 60,
        maxKeysPerAccount: dto.MUNINN_IDEMPOTENCY_MAX_KEYS ?? 100_000,
        maxBytesPerAccount: dto.MUNINN_IDEMPOTENCY_MAX_BYTES ?? 64 * 1024 * 1024,
      },
      fileMaxBytes,
      exportMaxConcurrent: dto.MUNINN_EXPORT_MAX_CONCURRENT ?? 2,
      import: {
        maxBytes: dto.MUNINN_IMPORT_MAX_BYTES ?? 16 * 1024 * 1024 * 1024,
        maxLineBytes: importLineBytes,
        abandonMs: (dto.MUNINN_IMPORT_ABANDON_S ?? 300) * 1000,
        maxConcurrent: dto.MUNINN_IMPORT_MAX_CONCURRENT ?? 2,
        idleMs: (dto.MUNINN_IMPORT_IDLE_S ?? 60) * 1000,
      },
    },
    filter: {
      maxNodes: dto.MUNINN_FILTER_MAX_NODES ?? 500,
      maxDepth: dto.MUNINN_FILTER_MAX_DEPTH ?? 16,
      maxPatternLength: dto.MUNINN_FILTER_MAX_PATTERN_LENGTH ?? 256,
    },
    fs: {
      scanMaxFiles: dto.MUNINN_SCAN_MAX_FILES ?? 10000,
      scanMaxResults: dto.MUNINN_SCAN_MAX_RESULTS ?? 1000,
      scanMaxBytes: dto.MUNINN_SCAN_MAX_BYTES ?? 32 * 1024 * 1024,
      scanMaxLineChars: dto.MUNINN_SCAN_MAX_LINE_CHARS ?? 1000,
      treeMaxNodes: dto.MUNINN_TREE_MAX_NODES ?? 10000,
      moveMaxBytes: dto.MUNINN_MOVE_MAX_BYTES ?? 64 * 1024 * 1024,
      reindexMaxNodes: dto.MUNINN_REINDEX_MAX_NODES ?? 100_000,
      readMaxUris: dto.MUNINN_MCP_READ_MAX_URIS ?? 50,
    },
    uploads: {
      publicBaseUrl: dto.MUNINN_PUBLIC_BASE_URL ? withoutTrailingSlashes(dto.MUNINN_PUBLIC_BASE_URL) : null,
      tokenTtlS: dto.MUNINN_UPLOAD_TOKEN_TTL_S ?? 600,
      maxBytes: dto.MUNINN_UPLOAD_MAX_BYTES ?? 8 * 1024 * 1024,
    },
    queues: {
      transport: dto.MUNINN_TRANSPORT ?? 'bullmq',
      prefix: dto.MUNINN_QUEUE_PREFIX ?? 'muninn',
      fenceTtlMs: dto.MUNINN_QUEUE_FENCE_TTL_MS ?? 15000,
      workerConcurrency: dto.MUNINN_WORKER_CONCURRENCY ?? 16,
      assembleThreads: dto.MUNINN_ASSEMBLE_THREADS ?? 1,
      assembleThreadChars: dto.MUNINN_ASSEMBLE_THREAD_CHARS ?? 256 * 1024,
      fairWindowMs: dto.MUNINN_FAIR_WINDOW_MS ?? 10000,
      fairExtractTokens: dto.MUNINN_FAIR_EXTRACT_TOKENS ?? 4000,
      requestDeadlineMs: dto.MUNINN_REQUEST_DEADLINE_MS ?? 10000,
      writeWaitMs: dto.MUNINN_WRITE_WAIT_MS ?? 30000,
      failuresKept: dto.MUNINN_QUEUE_FAILURES_KEPT ?? 50,
      failureMaxChars: dto.MUNINN_QUEUE_FAILURE_MAX_CHARS ?? 500,
    },
    indexing: {
      outboxGraceMs: dto.MUNINN_OUTBOX_GRACE_MS ?? 10000,
      outboxPollMs: dto.MUNINN_OUTBOX_POLL_MS ?? 1000,
      crashLimit: dto.MUNINN_INDEX_CRASH_LIMIT ?? 2,
      holdMs: dto.MUNINN_INDEX_HOLD_MS ?? 6 * 3600 * 1000,
      accountMaxPending: dto.MUNINN_ACCOUNT_MAX_PENDING_INDEX ?? 10000,
      sidecarIntervalMs: dto.MUNINN_SIDECAR_INTERVAL_MS ?? 500,
      memoryAbstractMaxChars: dto.MUNINN_MEMORY_ABSTRACT_MAX_CHARS ?? 16000,
    },
    ledger: { ttlSeconds: dto.MUNINN_LEDGER_TTL_S ?? 7 * 24 * 3600 },
    limits: {
      bodyMaxDepth: dto.MUNINN_BODY_MAX_DEPTH ?? 64,
      queryMaxChars: dto.MUNINN_QUERY_MAX_CHARS ?? 10000,
      uriMaxChars: dto.MUNINN_URI_MAX_CHARS ?? 2048,
      uriMaxSegmentChars: dto.MUNINN_URI_MAX_SEGMENT_CHARS ?? 255,
      uriMaxDepth: dto.MUNINN_URI_MAX_DEPTH ?? 64,
      uriListMaxItems: dto.MUNINN_URI_LIST_MAX_ITEMS ?? 200,
      tagsMaxItems: dto.MUNINN_TAGS_MAX_ITEMS ?? 64,
      tagMaxChars: dto.MUNINN_TAG_MAX_CHARS ?? 128,
      batchMaxOps: dto.MUNINN_BATCH_MAX_OPS ?? 256,
      messageMaxChars: dto.MUNINN_MESSAGE_MAX_CHARS ?? 200000,
      descriptionMaxChars: dto.MUNINN_DESCRIPTION_MAX_CHARS ?? 4096,
      mcpMaxBatch: dto.MUNINN_MCP_MAX_BATCH ?? 16,
      mcpReadMaxChars: dto.MUNINN_MCP_READ_MAX_CHARS ?? 500000,
      idMaxChars: dto.MUNINN_ID_MAX_CHARS ?? 128,
      keyRotationGraceMaxS: dto.MUNINN_KEY_ROTATION_GRACE_MAX_S ?? 604_800,
      waitMaxSeconds: dto.MUNINN_WAIT_MAX_S ?? 600,
    },
    rate: {
      enabled: dto.MUNINN_RATE_LIMIT ?? true,
      keyPerMinute: dto.MUNINN_RATE_KEY_PER_MINUTE ?? 3000,
      accountPerMinute: dto.MUNINN_RATE_ACCOUNT_PER_MINUTE ?? 12000,
      accountMaxInflight: dto.MUNINN_ACCOUNT_MAX_INFLIGHT ?? 8,
      accountMaxQueued: dto.MUNINN_ACCOUNT_MAX_QUEUED ?? 64,
      accountMaxScans: dto.MUNINN_ACCOUNT_MAX_SCANS ?? 2,
      accountMaxLargeSearches: dto.MUNINN_ACCOUNT_MAX_LARGE_SEARCHES ?? 1,
      largeSearchCandidates: dto.MUNINN_LARGE_SEARCH_CANDIDATES ?? 200,
      accountMaxLargeBodies: dto.MUNINN_ACCOUNT_MAX_LARGE_BODIES ?? 2,
      largeBodyBytes: dto.MUNINN_LARGE_BODY_BYTES ?? 1024 * 1024,
    },
    embedding: {
      provider: embedBase ? 'openai' : 'local',
      baseUrl: embedBase,
      apiKey: dto.EMBEDDING_API_KEY ?? null,
      model: dto.EMBEDDING_MODEL ?? null,
      dim: dto.EMBEDDING_DIM ?? null,
      timeoutMs: dto.EMBEDDING_TIMEOUT_MS ?? 30_000,
      maxRetries: dto.EMBEDDING_MAX_RETRIES ?? 3,
      queryTimeoutMs: dto.MUNINN_QUERY_EMBED_TIMEOUT_MS ?? 3000,
    },
    llm: {
      baseUrl: dto.LLM_BASE_URL ?? null,
      apiKey: dto.LLM_API_KEY ?? null,
      model: dto.LLM_MODEL ?? null,
      queryPlannerModel: dto.QUERY_PLANNER_MODEL ?? dto.LLM_MODEL ?? null,
      intentTimeoutMs: Math.round((dto.RECALL_INTENT_TIMEOUT_S ?? 5) * 1000),
      rewriteTimeoutMs: Math.round((dto.RECALL_REWRITE_TIMEOUT_S ?? 30) * 1000),
      enableIntent: dto.RETRIEVAL_ENABLE_INTENT ?? true,
      breakerFailures: dto.MUNINN_MODEL_BREAKER_FAILURES ?? 5,
      breakerCooldownMs: Math.round((dto.MUNINN_MODEL_BREAKER_COOLDOWN_S ?? 30) * 1000),
      breakerShared: dto.MUNINN_MODEL_BREAKER_SHARED ?? true,
    },
    sessions: {
      messageMaxChars: dto.MUNINN_SESSION_MESSAGE_MAX_CHARS ?? 200_000,
      messageMaxParts: dto.MUNINN_SESSION_MESSAGE_MAX_PARTS ?? 100,
      batchMax: dto.MUNINN_SESSION_BATCH_MAX ?? 100,
      maxLiveMessages: dto.MUNINN_SESSION_MAX_LIVE_MESSAGES ?? 10_000,
      maxLiveTokens: dto.MUNINN_SESSION_MAX_LIVE_TOKENS ?? 2_000_000,
      maxUsageRecords: dto.MUNINN_SESSION_MAX_USAGE_RECORDS ?? 10_000,
      extractTimeoutMs: Math.round((dto.MUNINN_EXTRACT_TIMEOUT_S ?? 60) * 1000),
      extractPromptChars: dto.MUNINN_EXTRACT_PROMPT_CHARS ?? 60_000,
      extractMaxCalls: dto.MUNINN_EXTRACT_MAX_CALLS ?? 8,
      extractRetryMs: Math.round((dto.MUNINN_EXTRACT_RETRY_S ?? 2) * 1000),
      autoCommitByDefault: dto.MUNINN_SESSION_AUTO_COMMIT_DEFAULT ?? false,
      defaultMemoryPolicy: dto.MUNINN_SESSION_MEMORY_POLICY
        ? (JSON.parse(dto.MUNINN_SESSION_MEMORY_POLICY) as unknown)
        : null,
      taskTtlMs: (dto.MUNINN_TASK_TTL_S ?? 86_400) * 1000,
      accountMaxPendingCommits: dto.MUNINN_ACCOUNT_MAX_PENDING_COMMITS ?? 1000,
      accountModelTokensPerDay: dto.MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY ?? 10_000_000,
      failedTaskTtlMs: (dto.MUNINN_TASK_FAILED_TTL_S ?? 604_800) * 1000,
      toolOutputs: {
        externalize: dto.MUNINN_SESSION_TOOL_OUTPUT_EXTERNALIZE ?? true,
        thresholdChars: dto.MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS ?? 20_000,
        turnBudgetChars: dto.MUNINN_SESSION_TOOL_OUTPUT_TURN_BUDGET_CHARS ?? 100_000,
        previewChars: dto.MUNINN_SESSION_TOOL_OUTPUT_PREVIEW_CHARS ?? 2_000,
        maxPerSession: dto.MUNINN_SESSION_TOOL_RESULTS_MAX ?? 1_000,
        listMax: dto.MUNINN_TOOL_RESULT_LIST_MAX ?? 1_000,
        readMaxChars: dto.MUNINN_TOOL_RESULT_READ_MAX_CHARS ?? 1_000_000,
        searchMaxMatches: dto.MUNINN_TOOL_RESULT_SEARCH_MAX_MATCHES ?? 200,
        searchContextMaxChars: dto.MUNINN_TOOL_RESULT_SEARCH_CONTEXT_MAX_CHARS ?? 2_000,
      },
    },
    logLevel: dto.LOG_LEVEL ?? 'log',
    logFormat: dto.MUNINN_LOG_FORMAT ?? 'json',
    tracing: { otlpTracesUrl: dto.MUNINN_OTLP_TRACES_URL ?? null },
  };
}

const DECLARED = [
  'PORT',
  'HOST',
  'REDIS_URL',
  'DATABASE_URL',
  'MUNINN_DATA_DIR',
  'MUNINN_ROOT_API_KEY',
  'MUNINN_TRANSPORT',
  'MUNINN_QUEUE_PREFIX',
  'MUNINN_REQUEST_DEADLINE_MS',
  'MUNINN_WRITE_WAIT_MS',
  'MUNINN_OUTBOX_GRACE_MS',
  'MUNINN_OUTBOX_POLL_MS',
  'MUNINN_INDEX_CRASH_LIMIT',
  'MUNINN_INDEX_HOLD_MS',
  'MUNINN_ACCOUNT_MAX_PENDING_INDEX',
  'MUNINN_SIDECAR_INTERVAL_MS',
  'MUNINN_MEMORY_ABSTRACT_MAX_CHARS',
  'MUNINN_BODY_LIMIT_BYTES',
  'MUNINN_HTTP_HEADERS_TIMEOUT_S',
  'MUNINN_HTTP_BODY_TIMEOUT_S',
  'MUNINN_HTTP_BODY_MIN_RATE',
  'MUNINN_HTTP_SEND_IDLE_S',
  'MUNINN_HTTP_MAX_CONNECTIONS',
  'MUNINN_WORKER_CONCURRENCY',
  'MUNINN_ASSEMBLE_THREADS',
  'MUNINN_ASSEMBLE_THREAD_CHARS',
  'MUNINN_FAIR_WINDOW_MS',
  'MUNINN_FAIR_EXTRACT_TOKENS',
  'MUNINN_LEDGER_TTL_S',
  'LOG_LEVEL',
  'EMBEDDING_BASE_URL',
  'EMBEDDING_API_KEY',
  'EMBEDDING_MODEL',
  'EMBEDDING_DIM',
  'EMBEDDING_TIMEOUT_MS',
  'EMBEDDING_MAX_RETRIES',
  'MUNINN_QUERY_EMBED_TIMEOUT_MS',
  'LLM_BASE_URL',
  'LLM_API_KEY',
  'LLM_MODEL',
  'QUERY_PLANNER_MODEL',
  'RECALL_INTENT_TIMEOUT_S',
  'RECALL_REWRITE_TIMEOUT_S',
  'MUNINN_MODEL_BREAKER_FAILURES',
  'MUNINN_MODEL_BREAKER_COOLDOWN_S',
  'MUNINN_MODEL_BREAKER_SHARED',
  'RETRIEVAL_ENABLE_INTENT',
  'MUNINN_STATEMENT_TIMEOUT_MS',
  'MUNINN_FILTER_MAX_NODES',
  'MUNINN_FILTER_MAX_DEPTH',
  'MUNINN_FILTER_MAX_PATTERN_LENGTH',
  'MUNINN_METRICS_PORT',
  // issue 11 (guard): keys, rate limits, request bounds
  'MUNINN_KEY_SECRET',
  'MUNINN_KEY_SEED_MIN_LENGTH',
  'MUNINN_KEY_CACHE_TTL_MS',
  'MUNINN_KEY_CACHE_MAX_ENTRIES',
  'MUNINN_BODY_MAX_DEPTH',
  'MUNINN_QUERY_MAX_CHARS',
  'MUNINN_URI_MAX_CHARS',
  'MUNINN_URI_MAX_SEGMENT_CHARS',
  'MUNINN_URI_MAX_DEPTH',
  'MUNINN_URI_LIST_MAX_ITEMS',
  'MUNINN_TAGS_MAX_ITEMS',
  'MUNINN_TAG_MAX_CHARS',
  'MUNINN_BATCH_MAX_OPS',
  'MUNINN_MESSAGE_MAX_CHARS',
  'MUNINN_DESCRIPTION_MAX_CHARS',
  'MUNINN_MCP_MAX_BATCH',
  'MUNINN_MCP_READ_MAX_CHARS',
  'MUNINN_RATE_LIMIT',
  'MUNINN_RATE_KEY_PER_MINUTE',
  'MUNINN_RATE_ACCOUNT_PER_MINUTE',
  'MUNINN_ACCOUNT_MAX_INFLIGHT',
  'MUNINN_ACCOUNT_MAX_QUEUED',
  'MUNINN_ACCOUNT_MAX_SCANS',
  'MUNINN_ACCOUNT_MAX_LARGE_SEARCHES',
  'MUNINN_LARGE_SEARCH_CANDIDATES',
  'MUNINN_ACCOUNT_MAX_LARGE_BODIES',
  'MUNINN_LARGE_BODY_BYTES',
  'MUNINN_SCAN_MAX_FILES',
  'MUNINN_SCAN_MAX_RESULTS',
  'MUNINN_SCAN_MAX_BYTES',
  'MUNINN_SCAN_MAX_LINE_CHARS',
  'MUNINN_TREE_MAX_NODES',
  'MUNINN_MOVE_MAX_BYTES',
  'MUNINN_REINDEX_MAX_NODES',
  'MUNINN_ACCOUNT_MAX_NODES',
  'MUNINN_ACCOUNT_MAX_CONTENT_BYTES',
  'MUNINN_ACCOUNT_MAX_SESSIONS',
  'MUNINN_ACCOUNT_MAX_USERS',
  'MUNINN_AUDIT_RETENTION_DAYS',
  'MUNINN_MCP_READ_MAX_URIS',
  'MUNINN_PUBLIC_BASE_URL',
  'MUNINN_UPLOAD_TOKEN_TTL_S',
  'MUNINN_UPLOAD_MAX_BYTES',
  'MUNINN_SESSION_MESSAGE_MAX_CHARS',
  'MUNINN_SESSION_MESSAGE_MAX_PARTS',
  'MUNINN_SESSION_BATCH_MAX',
  'MUNINN_SESSION_MAX_LIVE_MESSAGES',
  'MUNINN_SESSION_MAX_LIVE_TOKENS',
  'MUNINN_SESSION_MAX_USAGE_RECORDS',
  'MUNINN_EXTRACT_TIMEOUT_S',
  'MUNINN_EXTRACT_PROMPT_CHARS',
  'MUNINN_EXTRACT_MAX_CALLS',
  'MUNINN_EXTRACT_RETRY_S',
  'MUNINN_SESSION_AUTO_COMMIT_DEFAULT',
  'MUNINN_SESSION_MEMORY_POLICY',
  'MUNINN_TASK_TTL_S',
  'MUNINN_ACCOUNT_MAX_PENDING_COMMITS',
  'MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY',
  'MUNINN_TASK_FAILED_TTL_S',
  'MUNINN_SESSION_TOOL_OUTPUT_EXTERNALIZE',
  'MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS',
  'MUNINN_SESSION_TOOL_OUTPUT_TURN_BUDGET_CHARS',
  'MUNINN_SESSION_TOOL_OUTPUT_PREVIEW_CHARS',
  'MUNINN_SESSION_TOOL_RESULTS_MAX',
  'MUNINN_TOOL_RESULT_LIST_MAX',
  'MUNINN_TOOL_RESULT_READ_MAX_CHARS',
  'MUNINN_TOOL_RESULT_SEARCH_MAX_MATCHES',
  'MUNINN_TOOL_RESULT_SEARCH_CONTEXT_MAX_CHARS',
  'MUNINN_ID_MAX_CHARS',
  'MUNINN_KEY_ROTATION_GRACE_MAX_S',
  'MUNINN_IDEMPOTENCY_KEY_MAX_CHARS',
  'MUNINN_IDEMPOTENCY_TTL_S',
  'MUNINN_IDEMPOTENCY_LEASE_S',
  'MUNINN_IDEMPOTENCY_MAX_KEYS',
  'MUNINN_IDEMPOTENCY_MAX_BYTES',
  'MUNINN_IMPORT_MAX_BYTES',
  'MUNINN_IMPORT_ABANDON_S',
  'MUNINN_IMPORT_IDLE_S',
  'MUNINN_EXPORT_MAX_CONCURRENT',
  'MUNINN_IMPORT_MAX_CONCURRENT',
  'MUNINN_FILE_MAX_BYTES',
  'MUNINN_IMPORT_MAX_LINE_BYTES',
  'MUNINN_WAIT_MAX_S',
  'MUNINN_LOG_FORMAT',
  'MUNINN_OTLP_TRACES_URL',
] as const;

function pickDeclared(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of DECLARED) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** A URL without its trailing slashes (a scan from the end: `/\/+$/` rescans a run of slashes from each one). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end -= 1;
  return url.slice(0, end);
}

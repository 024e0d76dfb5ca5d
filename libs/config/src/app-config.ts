/** The validated, typed configuration every process receives. */
export interface AppConfig {
  http: {
    port: number;
    host: string;
    bodyLimitBytes: number;
    /**
     * Slow clients (docs/limits-and-security.md, "Slow clients"): headers and body deadlines, how long a
     * response waits for its client to read, connections held.
     */
    headersTimeoutMs: number;
    bodyTimeoutMs: number;
    /** Bytes per second of a body that buy it one more second past `bodyTimeoutMs`; 0: a fixed deadline. */
    bodyMinRate: number;
    sendIdleMs: number;
    maxConnections: number;
    /** Port of the /metrics listener of a worker process (retriever, assembler, rewriter); null: none. */
    metricsPort: number | null;
  };
  auth: {
    rootApiKey: string | null;
    mode: 'api_key' | 'dev';
    /** Server secret seeded user keys are an HMAC under (docs/limits-and-security.md#keys-and-roles). */
    keySecret: string | null;
    /** Shortest seed the admin API accepts for a seeded key. */
    seedMinLength: number;
    /** How long a gateway trusts a resolved key without asking the store (0: never caches). */
    keyCacheTtlMs: number;
    keyCacheMaxEntries: number;
  };
  redis: { url: string };
  store: {
    databaseUrl: string | null;
    dataDir: string;
    statementTimeoutMs: number;
    /** What one account may store and register (docs/limits-and-security.md, "Storage quota"). */
    quota: { maxNodes: number; maxContentBytes: number; maxSessions: number; maxUsers: number };
    /** Days an admin audit event is kept (docs/limits-and-security.md, "Audit trail"). */
    auditRetentionDays: number;
    /** Retried writes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"). */
    idempotency: {
      keyMaxChars: number;
      ttlS: number;
      /** How long a running attempt's key holds without being renewed. */
      leaseS: number;
      maxKeysPerAccount: number;
      maxBytesPerAccount: number;
    };
    /** Bytes one file may hold (MUNINN_FILE_MAX_BYTES): an append past it is refused. */
    fileMaxBytes: number;
    /** Account exports one gateway runs at once (docs/limits-and-security.md, "Exporting an account"). */
    exportMaxConcurrent: number;
    /** Bounds of an account import's body (docs/limits-and-security.md, "Importing an account"). */
    import: {
      maxBytes: number;
      maxLineBytes: number;
      /** An import without its gateway's heartbeat this long is abandoned: its account is removed. */
      abandonMs: number;
      /** Imports one gateway runs at once. */
      maxConcurrent: number;
      /** An import whose body sends nothing this long is ended (408) and removed. */
      idleMs: number;
    };
  };
  /** Bounds on a request's metadata filter (see docs/limits-and-security.md#filters). */
  filter: { maxNodes: number; maxDepth: number; maxPatternLength: number };
  /** Bounds of tree walks, grep/glob scans and batch MCP reads (see docs/fs-and-mcp.md#limits). */
  fs: {
    scanMaxFiles: number;
    scanMaxResults: number;
    /** Content bytes one grep reads, and characters of one line it returns (docs/fs-and-mcp.md, "Grep and glob"). */
    scanMaxBytes: number;
    scanMaxLineChars: number;
    treeMaxNodes: number;
    moveMaxBytes: number;
    /** Nodes one reindex queues at most (the subtree and its root). */
    reindexMaxNodes: number;
    readMaxUris: number;
  };
  /**
   * One-shot upload links of the MCP `add_resource` tool (docs/fs-and-mcp.md, "add_resource"):
   * the origin named in them (null: inferred from the request), their lifetime, the largest file.
   */
  uploads: { publicBaseUrl: string | null; tokenTtlS: number; maxBytes: number };
  queues: {
    transport: 'bullmq' | 'inprocess';
    prefix: string;
    /** Life of this deployment's claim on the prefix without a heartbeat (docs/operations.md). */
    fenceTtlMs: number;
    workerConcurrency: number;
    /**
     * Worker threads planning an assembler's large blocks (0: none), and the size of a plan's input (abstracts and
     * bodies, in characters) from which it runs on one (docs/limits-and-security.md, "Large plans on worker threads").
     */
    assembleThreads: number;
    assembleThreadChars: number;
    /**
     * Window of the per-account work counts that order the background queues (index, sidecar,
     * extract); 0: first in, first out (docs/limits-and-security.md, "Fair background queues").
     */
    fairWindowMs: number;
    /** Archived tokens per unit of a commit's fair-order weight; 0: every commit weighs one. */
    fairExtractTokens: number;
    requestDeadlineMs: number;
    writeWaitMs: number;
    /**
     * Recent final failures kept per queue for `system/wait` (also the most it reports), and the
     * longest message kept (docs/fs-and-mcp.md, "system/wait").
     */
    failuresKept: number;
    failureMaxChars: number;
  };
  /** The write path: outbox relay and coalesced directory summaries (see docs/architecture.md#write-path). */
  indexing: {
    outboxGraceMs: number;
    outboxPollMs: number;
    /**
     * Runs of one outbox entry that may die with their worker before it is split per file or, a single file,
     * held for `holdMs` (docs/architecture.md, "A job that kills its worker").
     */
    crashLimit: number;
    holdMs: number;
    /** Files of one account awaiting indexing before its writes are refused (0: unbounded). */
    accountMaxPending: number;
    sidecarIntervalMs: number;
    memoryAbstractMaxChars: number;
  };
  ledger: { ttlSeconds: number };
  /** Request bounds (docs/limits-and-security.md#request-bounds). */
  limits: {
    bodyMaxDepth: number;
    queryMaxChars: number;
    uriMaxChars: number;
    uriMaxSegmentChars: number;
    uriMaxDepth: number;
    uriListMaxItems: number;
    tagsMaxItems: number;
    tagMaxChars: number;
    batchMaxOps: number;
    messageMaxChars: number;
    descriptionMaxChars: number;
    mcpMaxBatch: number;
    mcpReadMaxChars: number;
    idMaxChars: number;
    /** Longest time a rotated key may keep working (`previous_key_valid_s`). */
    keyRotationGraceMaxS: number;
    /** Largest `timeout` (seconds) a caller may ask any wait for: writes, reindex, system/wait. */
    waitMaxSeconds: number;
  };
  /** Rate limits and per-account fairness (docs/limits-and-security.md#rate-limits-and-fairness). */
  rate: {
    enabled: boolean;
    keyPerMinute: number;
    accountPerMinute: number;
    accountMaxInflight: number;
    accountMaxQueued: number;
    accountMaxScans: number;
    accountMaxLargeSearches: number;
    /** A search asking for more candidates than this, over all its find calls, is a large one. */
    largeSearchCandidates: number;
    accountMaxLargeBodies: number;
    /** A request whose body is larger than this (or of undeclared length) is a large one. */
    largeBodyBytes: number;
  };
  embedding: {
    provider: 'local' | 'openai';
    baseUrl: string | null;
    apiKey: string | null;
    model: string | null;
    dim: number | null;
    /** One provider call's timeout, and its retries after a transient failure (an index job's embedding waits them out). */
    timeoutMs: number;
    maxRetries: number;
    /**
     * How long a search waits for its query's embedding before it goes on lexically (docs/limits-and-security.md,
     * "A model that stops answering"); the circuit of `llm.breaker*` covers it too.
     */
    queryTimeoutMs: number;
  };
  llm: {
    baseUrl: string | null;
    apiKey: string | null;
    model: string | null;
    queryPlannerModel: string | null;
    intentTimeoutMs: number;
    rewriteTimeoutMs: number;
    enableIntent: boolean;
    /**
     * Consecutive failed expansions (or digests) after which a gateway stops making them for
     * `breakerCooldownMs`, then tries one; 0: never (docs/limits-and-security.md, "A model that stops answering").
     */
    breakerFailures: number;
    breakerCooldownMs: number;
    /** Whether a circuit's opening holds the other processes' circuits of that call open (through Redis). */
    breakerShared: boolean;
  };
  /** Session message bounds and extraction (see docs/sessions.md). */
  sessions: {
    messageMaxChars: number;
    messageMaxParts: number;
    batchMax: number;
    /** Uncommitted messages, and their token estimate, one session holds at most (413 past either). */
    maxLiveMessages: number;
    maxLiveTokens: number;
    /** Usage records (`POST …/used`) one session holds until a commit consumes them (413 past it). */
    maxUsageRecords: number;
    extractTimeoutMs: number;
    extractPromptChars: number;
    /** Model calls one extraction may make (a window of `extractPromptChars` each); later messages are extracted offline. */
    extractMaxCalls: number;
    /**
     * Wait before a commit's extraction is tried again after a transient provider failure, doubled per
     * attempt (a longer `Retry-After` from the provider wins; docs/sessions.md "A provider that fails for a while").
     */
    extractRetryMs: number;
    /** New sessions get the default automatic-commit policy unless they say `null` (MUNINN_SESSION_AUTO_COMMIT_DEFAULT). */
    autoCommitByDefault: boolean;
    /**
     * The server's default memory policy as configured (MUNINN_SESSION_MEMORY_POLICY, parsed JSON; the
     * extractor normalises it at start-up); null: the built-in default.
     */
    defaultMemoryPolicy: unknown;
    /** Completed and cancelled task records are deleted this long after their last change (MUNINN_TASK_TTL_S). */
    taskTtlMs: number;
    /** Commits of one account awaiting extraction before its explicit commits are refused (0: unbounded). */
    accountMaxPendingCommits: number;
    /** Model tokens (prompt and answer) one account's extraction, expansion and digest calls may spend per UTC day; 0: no budget. */
    accountModelTokensPerDay: number;
    /** Failed task records are kept this long (MUNINN_TASK_FAILED_TTL_S). */
    failedTaskTtlMs: number;
    /** Large tool output externalisation and the tool-result routes (docs/sessions.md "Tool results"). */
    toolOutputs: {
      /** Store long tool outputs as tool results (MUNINN_SESSION_TOOL_OUTPUT_EXTERNALIZE). */
      externalize: boolean;
      /** One output over this many code points is externalised (MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS). */
      thresholdChars: number;
      /** Inline tool outputs of one added turn stay under this (MUNINN_SESSION_TOOL_OUTPUT_TURN_BUDGET_CHARS). */
      turnBudgetChars: number;
      /** Code points kept inline as the preview (MUNINN_SESSION_TOOL_OUTPUT_PREVIEW_CHARS). */
      previewChars: number;
      /** Tool results one session may hold; beyond it outputs stay inline (MUNINN_SESSION_TOOL_RESULTS_MAX). */
      maxPerSession: number;
      /** Largest `limit` of the list route (MUNINN_TOOL_RESULT_LIST_MAX). */
      listMax: number;
      /** Largest `limit` of the read route, in code points (MUNINN_TOOL_RESULT_READ_MAX_CHARS). */
      readMaxChars: number;
      /** Largest `limit` of the search route (MUNINN_TOOL_RESULT_SEARCH_MAX_MATCHES). */
      searchMaxMatches: number;
      /** Largest `context_chars` of the search route (MUNINN_TOOL_RESULT_SEARCH_CONTEXT_MAX_CHARS). */
      searchContextMaxChars: number;
    };
  };
  logLevel: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  /** `json`: one JSON object per line (docs/operations.md "Logs"); `text`: Nest's console format. */
  logFormat: 'json' | 'text';
  /** OpenTelemetry (docs/operations.md "Tracing"): the OTLP/HTTP traces endpoint; null: tracing off. */
  tracing: { otlpTracesUrl: string | null };
}

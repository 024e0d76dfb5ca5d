import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsJSON,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

// Text that is not a number stays text, so the error quotes what was set (NaN would print as null).
const toInt = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isNaN(n) ? value : n;
};
const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const v = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};
const blankToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** Every environment variable Muninn reads. Nothing else touches `process.env`. */
export class EnvDto {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL?: string;

  @IsOptional()
  @Transform(blankToUndefined)
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  MUNINN_DATA_DIR?: string;

  @IsOptional()
  @Transform(blankToUndefined)
  @IsString()
  @MinLength(16, { message: 'MUNINN_ROOT_API_KEY must be at least 16 characters' })
  MUNINN_ROOT_API_KEY?: string;

  @IsOptional()
  @Transform(blankToUndefined)
  @IsString()
  @MinLength(32, { message: 'MUNINN_KEY_SECRET must be at least 32 characters' })
  MUNINN_KEY_SECRET?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(8)
  @Max(256)
  MUNINN_KEY_SEED_MIN_LENGTH?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300_000)
  MUNINN_KEY_CACHE_TTL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  MUNINN_KEY_CACHE_MAX_ENTRIES?: number;

  @IsOptional()
  @IsIn(['bullmq', 'inprocess'])
  MUNINN_TRANSPORT?: 'bullmq' | 'inprocess';

  @IsOptional()
  @IsString()
  @MinLength(1)
  MUNINN_QUEUE_PREFIX?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600000)
  MUNINN_QUEUE_FENCE_TTL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600000)
  MUNINN_REQUEST_DEADLINE_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600000)
  MUNINN_WRITE_WAIT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_QUEUE_FAILURES_KEPT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(10000)
  MUNINN_QUEUE_FAILURE_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3600000)
  MUNINN_OUTBOX_GRACE_MS?: number;

  // Files of one account written but not yet indexed before its next write is refused with 429
  // (docs/limits-and-security.md, "Backlog bounds"); 0 turns the bound off.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10000000)
  MUNINN_ACCOUNT_MAX_PENDING_INDEX?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60000)
  MUNINN_OUTBOX_POLL_MS?: number;

  // Runs of one outbox entry that may die with their worker (killed, out of memory, crashed) before the next
  // run splits it into one entry per file, or sets a single file's entry aside for MUNINN_INDEX_HOLD_MS
  // (docs/architecture.md, "A job that kills its worker").
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  MUNINN_INDEX_CRASH_LIMIT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(604800000)
  MUNINN_INDEX_HOLD_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600000)
  MUNINN_SIDECAR_INTERVAL_MS?: number;

  // A memory file's stored abstract is its body up to this many characters (docs/limits-and-security.md,
  // "Work per byte"): what find answers carry per hit, through Redis and back to the client.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(1000000)
  MUNINN_MEMORY_ABSTRACT_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(268435456)
  MUNINN_BODY_LIMIT_BYTES?: number;

  /** Seconds a client may take to send a request's headers (docs/limits-and-security.md, "Slow clients"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(300)
  MUNINN_HTTP_HEADERS_TIMEOUT_S?: number;

  /** Seconds a client may take to send a request's body once the gateway reads it (the import aside). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  MUNINN_HTTP_BODY_TIMEOUT_S?: number;

  /** Bytes per second a body may arrive at and still not be cut off: each such many bytes buys a second more. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_073_741_824)
  MUNINN_HTTP_BODY_MIN_RATE?: number;

  /** Seconds a response may wait for its client to take any of its bytes before the connection is closed. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(3600)
  MUNINN_HTTP_SEND_IDLE_S?: number;

  /** Connections one gateway holds at once; beyond, new ones are closed as they arrive. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(1000000)
  MUNINN_HTTP_MAX_CONNECTIONS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  MUNINN_WORKER_CONCURRENCY?: number;

  // Worker threads of an assembler process that plan large blocks off its event loop; 0: every plan on the loop
  // (docs/limits-and-security.md, "Large plans on worker threads").
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(64)
  MUNINN_ASSEMBLE_THREADS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1073741824)
  MUNINN_ASSEMBLE_THREAD_CHARS?: number;

  // 0 turns fair ordering off (first in, first out); at most an hour (docs/limits-and-security.md).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600000)
  MUNINN_FAIR_WINDOW_MS?: number;

  // Archived tokens one unit of a commit's weight in the extract queue's fair order; 0: every commit weighs one.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10000000)
  MUNINN_FAIR_EXTRACT_TOKENS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(31536000)
  MUNINN_LEDGER_TTL_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600000)
  MUNINN_STATEMENT_TIMEOUT_MS?: number;

  // The maxima are the filter compiler's own ceilings (FILTER_LIMIT_CEILINGS in the kernel).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(5000)
  MUNINN_FILTER_MAX_NODES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  MUNINN_FILTER_MAX_DEPTH?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(4096)
  MUNINN_FILTER_MAX_PATTERN_LENGTH?: number;

  // Grep/glob scans, tree walks and batch MCP reads (docs/fs-and-mcp.md#limits).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000000)
  MUNINN_SCAN_MAX_FILES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  MUNINN_SCAN_MAX_RESULTS?: number;

  /** Content bytes one grep reads: files in URI order until the next would pass this (docs/fs-and-mcp.md, "Grep and glob"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  MUNINN_SCAN_MAX_BYTES?: number;

  /** Characters of one matching line a grep returns; a longer line is cut around its match (docs/fs-and-mcp.md, "Grep and glob"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(1_000_000)
  MUNINN_SCAN_MAX_LINE_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  MUNINN_TREE_MAX_NODES?: number;

  /** Files and directories one `content/reindex` queues at most (docs/fs-and-mcp.md, "Limits"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(100_000)
  MUNINN_REINDEX_MAX_NODES?: number;

  /** Content bytes one `fs/mv` moves at most (docs/fs-and-mcp.md, "Limits"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  MUNINN_MOVE_MAX_BYTES?: number;

  /** Files and directories one account may hold (docs/limits-and-security.md, "Storage quota"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(1_000_000_000)
  MUNINN_ACCOUNT_MAX_NODES?: number;

  /** UTF-8 bytes of file content, live session messages and usage records one account may hold (docs/limits-and-security.md, "Storage quota"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(Number.MAX_SAFE_INTEGER)
  MUNINN_ACCOUNT_MAX_CONTENT_BYTES?: number;

  /** Sessions one account may hold (docs/limits-and-security.md, "Storage quota"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  MUNINN_ACCOUNT_MAX_SESSIONS?: number;

  /** Users (with their keys) one account may register (docs/limits-and-security.md, "Storage quota"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  MUNINN_ACCOUNT_MAX_USERS?: number;

  /** Days the admin audit trail keeps an event (docs/limits-and-security.md, "Audit trail"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  MUNINN_AUDIT_RETENTION_DAYS?: number;

  /** Longest Idempotency-Key header (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(1024)
  MUNINN_IDEMPOTENCY_KEY_MAX_CHARS?: number;

  /** Seconds a write's Idempotency-Key and its reply are kept for retries. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(604800)
  MUNINN_IDEMPOTENCY_TTL_S?: number;

  /**
   * Seconds a running attempt holds its Idempotency-Key without a sign of life: the attempt renews it every third
   * of that while it runs; a retry after it ran out takes over a key whose attempt changed nothing.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(3)
  @Max(600)
  MUNINN_IDEMPOTENCY_LEASE_S?: number;

  /** Idempotency keys one account holds at most; the oldest go first past it. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(10000000)
  MUNINN_IDEMPOTENCY_MAX_KEYS?: number;

  /** Bytes of kept replies one account holds at most; the oldest keys go first past it. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(4096)
  @Max(1073741824)
  MUNINN_IDEMPOTENCY_MAX_BYTES?: number;

  /** Bytes of one account import's body (an export, NDJSON) at most. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(65536)
  @Max(1099511627776)
  MUNINN_IMPORT_MAX_BYTES?: number;

  /**
   * Bytes one file may take, counted as an export's line holds it (JSON-escaped; docs/limits-and-security.md,
   * "Storage quota"): appends cannot grow a file past it, so its export line fits the import's line bound. At most
   * MUNINN_IMPORT_MAX_LINE_BYTES less 16 KiB.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(134217728)
  MUNINN_FILE_MAX_BYTES?: number;

  /** Bytes of one line of an account import at most (a file with its body, a commit's archive). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(65536)
  @Max(268435456)
  MUNINN_IMPORT_MAX_LINE_BYTES?: number;

  /** Account imports one gateway runs at once (each holds a line and a batch in memory). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(8)
  MUNINN_IMPORT_MAX_CONCURRENT?: number;

  /** Account exports one gateway runs at once (each holds a pooled store connection on PostgreSQL). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(8)
  MUNINN_EXPORT_MAX_CONCURRENT?: number;

  /** Seconds an import may go without its gateway's heartbeat before its account is removed as abandoned. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(86400)
  MUNINN_IMPORT_ABANDON_S?: number;

  /** Seconds an import's body may send nothing before the import is ended (408) and removed. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(3600)
  MUNINN_IMPORT_IDLE_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_MCP_READ_MAX_URIS?: number;

  /** Origin clients reach this server at, for upload links (docs/fs-and-mcp.md, "add_resource"). */
  @IsOptional()
  @Transform(blankToUndefined)
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  MUNINN_PUBLIC_BASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(86400)
  MUNINN_UPLOAD_TOKEN_TTL_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(268435456)
  MUNINN_UPLOAD_MAX_BYTES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  MUNINN_METRICS_PORT?: number;

  // Request bounds and rate limits (issue 11); see docs/limits-and-security.md.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(8)
  @Max(512)
  MUNINN_BODY_MAX_DEPTH?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(1000000)
  MUNINN_QUERY_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(64)
  @Max(65536)
  MUNINN_URI_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(4096)
  MUNINN_URI_MAX_SEGMENT_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(4)
  @Max(1000)
  MUNINN_URI_MAX_DEPTH?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  MUNINN_URI_LIST_MAX_ITEMS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  MUNINN_TAGS_MAX_ITEMS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(8)
  @Max(65536)
  MUNINN_TAG_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  MUNINN_BATCH_MAX_OPS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(64)
  @Max(268435456)
  MUNINN_MESSAGE_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(64)
  @Max(1048576)
  MUNINN_DESCRIPTION_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_MCP_MAX_BATCH?: number;

  // Characters one MCP `read` answers at most, over all its URIs (docs/fs-and-mcp.md#limits).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(10000000)
  MUNINN_MCP_READ_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(4096)
  MUNINN_ID_MAX_CHARS?: number;

  /** Longest `previous_key_valid_s` of a key rotation (docs/limits-and-security.md, "Keys and roles"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(2592000)
  MUNINN_KEY_ROTATION_GRACE_MAX_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  MUNINN_WAIT_MAX_S?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  MUNINN_RATE_LIMIT?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000000)
  MUNINN_RATE_KEY_PER_MINUTE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000000)
  MUNINN_RATE_ACCOUNT_PER_MINUTE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  MUNINN_ACCOUNT_MAX_INFLIGHT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100000)
  MUNINN_ACCOUNT_MAX_QUEUED?: number;

  // Greps and globs of one account running at once on one gateway (docs/limits-and-security.md).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_ACCOUNT_MAX_SCANS?: number;

  // Large searches (more candidates than MUNINN_LARGE_SEARCH_CANDIDATES) of one account running at once on one
  // gateway (docs/limits-and-security.md, "Large searches have a narrower lane").
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_ACCOUNT_MAX_LARGE_SEARCHES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  MUNINN_LARGE_SEARCH_CANDIDATES?: number;

  // Requests with a body larger than MUNINN_LARGE_BODY_BYTES of one account running at once on one gateway
  // (docs/limits-and-security.md, "Large bodies have a narrower lane").
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_ACCOUNT_MAX_LARGE_BODIES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1073741824)
  MUNINN_LARGE_BODY_BYTES?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL?: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';

  @IsOptional()
  @IsIn(['json', 'text'])
  MUNINN_LOG_FORMAT?: 'json' | 'text';

  @IsOptional()
  @Transform(blankToUndefined)
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  MUNINN_OTLP_TRACES_URL?: string;

  @IsOptional()
  @Transform(blankToUndefined)
  @IsUrl({ require_tld: false, require_protocol: true })
  EMBEDDING_BASE_URL?: string;

  @IsOptional()
  @IsString()
  EMBEDDING_API_KEY?: string;

  @IsOptional()
  @IsString()
  EMBEDDING_MODEL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(8)
  @Max(8192)
  EMBEDDING_DIM?: number;

  // One call to the embedding provider: its timeout and the retries after a 429, 5xx, timeout or network error
  // (docs/limits-and-security.md, "Writes while it is away"). A search's own fuse cuts its call shorter.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(300_000)
  EMBEDDING_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10)
  EMBEDDING_MAX_RETRIES?: number;

  // The fuse of a query's embedding on the request path; past it the search is lexical (docs/limits-and-security.md).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  MUNINN_QUERY_EMBED_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(blankToUndefined)
  @IsUrl({ require_tld: false, require_protocol: true })
  LLM_BASE_URL?: string;

  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  @IsOptional()
  @IsString()
  LLM_MODEL?: string;

  @IsOptional()
  @IsString()
  QUERY_PLANNER_MODEL?: string;

  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsNumber()
  @Min(0.001)
  @Max(600)
  RECALL_INTENT_TIMEOUT_S?: number;

  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsNumber()
  @Min(0.001)
  @Max(600)
  RECALL_REWRITE_TIMEOUT_S?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  RETRIEVAL_ENABLE_INTENT?: boolean;

  // The provider circuits: the gateway's expansion and digest, the retriever's query and index embeddings
  // (docs/limits-and-security.md, "A model that stops answering").
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  MUNINN_MODEL_BREAKER_FAILURES?: number;

  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsNumber()
  @Min(0.1)
  @Max(3600)
  MUNINN_MODEL_BREAKER_COOLDOWN_S?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  MUNINN_MODEL_BREAKER_SHARED?: boolean;

  // Sessions (docs/sessions.md): bounds of one message and one batch, the extraction model's fuse.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  MUNINN_SESSION_MESSAGE_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_SESSION_MESSAGE_MAX_PARTS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MUNINN_SESSION_BATCH_MAX?: number;

  /** Uncommitted messages one session holds at most (docs/sessions.md, "Bounds"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(1_000_000)
  MUNINN_SESSION_MAX_LIVE_MESSAGES?: number;

  /** Token estimate of the uncommitted messages one session holds at most (docs/sessions.md, "Bounds"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(100_000_000)
  MUNINN_SESSION_MAX_LIVE_TOKENS?: number;

  /** Usage records (`POST /sessions/{id}/used`) one session holds until a commit consumes them (docs/sessions.md, "Usage records"). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(1_000_000)
  MUNINN_SESSION_MAX_USAGE_RECORDS?: number;

  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsNumber()
  @Min(0.1)
  @Max(600)
  MUNINN_EXTRACT_TIMEOUT_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(2_000_000)
  MUNINN_EXTRACT_PROMPT_CHARS?: number;

  // Model calls one extraction may make, one per MUNINN_EXTRACT_PROMPT_CHARS of conversation (docs/sessions.md).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  MUNINN_EXTRACT_MAX_CALLS?: number;

  // First wait before an extraction is tried again after a transient provider failure, doubled per attempt (docs/sessions.md).
  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsNumber()
  @Min(0.1)
  @Max(600)
  MUNINN_EXTRACT_RETRY_S?: number;

  // Sessions: the server-wide automatic-commit default and task record retention (docs/sessions.md).
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  MUNINN_SESSION_AUTO_COMMIT_DEFAULT?: boolean;

  // The server's default memory policy, a JSON object in the shape of a session's `memory_policy`; the
  // extractor normalises it at start-up and refuses to start on an invalid one (docs/sessions.md "Memory policy").
  @IsOptional()
  @IsJSON()
  @MaxLength(2000)
  MUNINN_SESSION_MEMORY_POLICY?: string;

  // Commits of one account awaiting extraction before its next commit is refused with 429
  // (docs/limits-and-security.md, "Backlog bounds"); 0 turns the bound off.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000000)
  MUNINN_ACCOUNT_MAX_PENDING_COMMITS?: number;

  // Model tokens one account's calls (extraction, expansion, digest) may spend per UTC day
  // (docs/limits-and-security.md, "Model budget"); 0 turns the budget off.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000_000)
  MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(31_536_000)
  MUNINN_TASK_TTL_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(31_536_000)
  MUNINN_TASK_FAILED_TTL_S?: number;

  // Sessions: large tool output externalisation and the tool-result routes' bounds (docs/sessions.md "Tool results").
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  MUNINN_SESSION_TOOL_OUTPUT_EXTERNALIZE?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(100_000_000)
  MUNINN_SESSION_TOOL_OUTPUT_TURN_BUDGET_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000)
  MUNINN_SESSION_TOOL_OUTPUT_PREVIEW_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  MUNINN_SESSION_TOOL_RESULTS_MAX?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MUNINN_TOOL_RESULT_LIST_MAX?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  MUNINN_TOOL_RESULT_READ_MAX_CHARS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  MUNINN_TOOL_RESULT_SEARCH_MAX_MATCHES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000)
  MUNINN_TOOL_RESULT_SEARCH_CONTEXT_MAX_CHARS?: number;
}

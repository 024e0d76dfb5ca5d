import { ConfigError, loadConfig } from './load-config';

// The environment is validated once, into the nested typed config (docs/operations.md): defaults for an empty
// environment, typed values for set ones, and one error that names every bad variable.

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('an empty environment gives the documented defaults (dev mode, BullMQ, 10 s request deadline)', () => {
    const c = loadConfig({});
    expect([c.http.port, c.http.host, c.auth.mode, c.auth.rootApiKey]).toEqual([1933, '0.0.0.0', 'dev', null]);
    expect([c.queues.transport, c.queues.requestDeadlineMs, c.redis.url]).toEqual([
      'bullmq',
      10000,
      'redis://127.0.0.1:6379',
    ]);
    expect([c.filter.maxDepth, c.store.databaseUrl]).toEqual([16, null]);
  });

  it('set variables become typed values; a root key switches to api_key mode', () => {
    const c = loadConfig({
      PORT: '8080',
      MUNINN_ROOT_API_KEY: 'a-root-key-of-enough-length',
      MUNINN_REQUEST_DEADLINE_MS: '2500',
      MUNINN_RATE_LIMIT: 'off',
    });
    expect([c.http.port, c.auth.mode, c.queues.requestDeadlineMs]).toEqual([8080, 'api_key', 2500]);
  });

  it('names every bad variable at once, with the value it got', () => {
    const problems = problemsOf({ PORT: 'eighty', MUNINN_REQUEST_DEADLINE_MS: 'soon', REDIS_URL: 'http://x' });
    expect(problems.some((p) => p.includes('PORT') && p.includes('"eighty"'))).toBe(true);
    expect(problems.some((p) => p.includes('MUNINN_REQUEST_DEADLINE_MS'))).toBe(true);
    expect(problems.some((p) => p.includes('REDIS_URL'))).toBe(true);
  });

  it('tool output externalisation: the contract defaults, typed values, bounds', () => {
    expect(loadConfig({}).sessions.toolOutputs).toMatchObject({
      externalize: true,
      thresholdChars: 20_000,
      turnBudgetChars: 100_000,
      previewChars: 2_000,
    });
    const c = loadConfig({ MUNINN_SESSION_TOOL_OUTPUT_EXTERNALIZE: 'false', MUNINN_TOOL_RESULT_LIST_MAX: '7' });
    expect([c.sessions.toolOutputs.externalize, c.sessions.toolOutputs.listMax]).toEqual([false, 7]);
    const problems = problemsOf({
      MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS: '5',
      MUNINN_TOOL_RESULT_READ_MAX_CHARS: '0',
    });
    expect(problems.some((p) => p.includes('MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS'))).toBe(true);
    expect(problems.some((p) => p.includes('MUNINN_TOOL_RESULT_READ_MAX_CHARS'))).toBe(true);
  });

  it('account storage quota: defaults, typed values, bounds', () => {
    expect(loadConfig({}).store.quota).toEqual({
      maxNodes: 1_000_000,
      maxContentBytes: 1024 * 1024 * 1024,
      maxSessions: 100_000,
      maxUsers: 10_000,
    });
    const c = loadConfig({
      MUNINN_ACCOUNT_MAX_NODES: '50',
      MUNINN_ACCOUNT_MAX_SESSIONS: '2',
      MUNINN_ACCOUNT_MAX_USERS: '3',
    });
    expect([c.store.quota.maxNodes, c.store.quota.maxSessions, c.store.quota.maxUsers]).toEqual([50, 2, 3]);
    const problems = problemsOf({
      MUNINN_ACCOUNT_MAX_NODES: '5',
      MUNINN_ACCOUNT_MAX_CONTENT_BYTES: '100',
      MUNINN_ACCOUNT_MAX_SESSIONS: 'many',
      MUNINN_ACCOUNT_MAX_USERS: '0',
    });
    const names = ['NODES', 'CONTENT_BYTES', 'SESSIONS', 'USERS'].map((n) => `MUNINN_ACCOUNT_MAX_${n}`);
    for (const name of names) expect(problems.some((p) => p.includes(name))).toBe(true);
  });

  it('model failures: the extraction retry wait and the request-path circuit', () => {
    const d = loadConfig({});
    expect([d.sessions.extractRetryMs, d.llm.breakerFailures, d.llm.breakerCooldownMs, d.llm.breakerShared]).toEqual([
      2000,
      5,
      30_000,
      true,
    ]);
    const c = loadConfig({
      MUNINN_EXTRACT_RETRY_S: '0.1',
      MUNINN_MODEL_BREAKER_FAILURES: '0',
      MUNINN_MODEL_BREAKER_COOLDOWN_S: '2.5',
      MUNINN_MODEL_BREAKER_SHARED: 'false',
    });
    expect([c.sessions.extractRetryMs, c.llm.breakerFailures, c.llm.breakerCooldownMs, c.llm.breakerShared]).toEqual([
      100,
      0,
      2500,
      false,
    ]);
    const problems = problemsOf({
      MUNINN_EXTRACT_RETRY_S: '0',
      MUNINN_MODEL_BREAKER_FAILURES: '1001',
      MUNINN_MODEL_BREAKER_COOLDOWN_S: 'soon',
      MUNINN_MODEL_BREAKER_SHARED: 'sometimes',
    });
    for (const name of [
      'EXTRACT_RETRY_S',
      'MODEL_BREAKER_FAILURES',
      'MODEL_BREAKER_COOLDOWN_S',
      'MODEL_BREAKER_SHARED',
    ])
      expect(problems.some((p) => p.includes(`MUNINN_${name}`))).toBe(true);
  });

  it('embedding provider calls: timeout and retries, defaults, typed values, bounds', () => {
    const d = loadConfig({});
    expect([d.embedding.timeoutMs, d.embedding.maxRetries, d.embedding.queryTimeoutMs]).toEqual([30_000, 3, 3000]);
    const c = loadConfig({ EMBEDDING_TIMEOUT_MS: '5000', EMBEDDING_MAX_RETRIES: '0' });
    expect([c.embedding.timeoutMs, c.embedding.maxRetries]).toEqual([5000, 0]);
    const problems = problemsOf({ EMBEDDING_TIMEOUT_MS: '99', EMBEDDING_MAX_RETRIES: '11' });
    for (const name of ['EMBEDDING_TIMEOUT_MS', 'EMBEDDING_MAX_RETRIES'])
      expect(problems.some((p) => p.includes(name))).toBe(true);
  });

  it('slow-client bounds: defaults, typed values, bounds', () => {
    const d = loadConfig({});
    expect([d.http.headersTimeoutMs, d.http.bodyTimeoutMs, d.http.sendIdleMs, d.http.maxConnections]).toEqual([
      15_000, 60_000, 60_000, 10_000,
    ]);
    expect(d.store.import.idleMs).toBe(60_000);
    expect(d.http.bodyMinRate).toBe(16_384);
    expect(loadConfig({ MUNINN_HTTP_BODY_MIN_RATE: '0' }).http.bodyMinRate).toBe(0);
    expect(problemsOf({ MUNINN_HTTP_BODY_MIN_RATE: '-1' }).some((p) => p.includes('MUNINN_HTTP_BODY_MIN_RATE'))).toBe(
      true,
    );
    const c = loadConfig({
      MUNINN_HTTP_HEADERS_TIMEOUT_S: '2',
      MUNINN_HTTP_BODY_TIMEOUT_S: '3',
      MUNINN_HTTP_SEND_IDLE_S: '5',
      MUNINN_HTTP_MAX_CONNECTIONS: '24',
      MUNINN_IMPORT_IDLE_S: '7',
    });
    expect([c.http.headersTimeoutMs, c.http.bodyTimeoutMs, c.http.sendIdleMs, c.http.maxConnections]).toEqual([
      2000, 3000, 5000, 24,
    ]);
    expect(c.store.import.idleMs).toBe(7000);
    const problems = problemsOf({
      MUNINN_HTTP_HEADERS_TIMEOUT_S: '301',
      MUNINN_HTTP_BODY_TIMEOUT_S: '0',
      MUNINN_HTTP_SEND_IDLE_S: '4',
      MUNINN_HTTP_MAX_CONNECTIONS: '15',
      MUNINN_IMPORT_IDLE_S: 'soon',
    });
    const names = [
      'HTTP_HEADERS_TIMEOUT_S',
      'HTTP_BODY_TIMEOUT_S',
      'HTTP_SEND_IDLE_S',
      'HTTP_MAX_CONNECTIONS',
      'IMPORT_IDLE_S',
    ];
    for (const name of names) expect(problems.some((p) => p.includes(`MUNINN_${name}`))).toBe(true);
  });

  it('usage records a session holds: default, typed value, bounds', () => {
    expect(loadConfig({}).sessions.maxUsageRecords).toBe(10_000);
    expect(loadConfig({ MUNINN_SESSION_MAX_USAGE_RECORDS: '250' }).sessions.maxUsageRecords).toBe(250);
    for (const bad of ['99', '1000001', 'lots'])
      expect(problemsOf({ MUNINN_SESSION_MAX_USAGE_RECORDS: bad }).join(' ')).toContain(
        'MUNINN_SESSION_MAX_USAGE_RECORDS',
      );
  });

  it('the server memory policy is bounded JSON, parsed; its meaning is checked by the extractor', () => {
    expect(loadConfig({}).sessions.defaultMemoryPolicy).toBeNull();
    const c = loadConfig({ MUNINN_SESSION_MEMORY_POLICY: '{"memory_types":["events"]}' });
    expect(c.sessions.defaultMemoryPolicy).toEqual({ memory_types: ['events'] });
    expect(problemsOf({ MUNINN_SESSION_MEMORY_POLICY: '{memory_types' }).join(' ')).toContain(
      'MUNINN_SESSION_MEMORY_POLICY',
    );
    const long = JSON.stringify({ memory_types: Array(400).fill('events') });
    expect(problemsOf({ MUNINN_SESSION_MEMORY_POLICY: long }).join(' ')).toContain('MUNINN_SESSION_MEMORY_POLICY');
  });

  it("refuses a file bound whose files' export lines the import's line bound cannot hold", () => {
    expect(problemsOf({ MUNINN_FILE_MAX_BYTES: '60000', MUNINN_IMPORT_MAX_LINE_BYTES: '65536' })).toEqual([
      "MUNINN_FILE_MAX_BYTES (60000) must leave 16384 bytes of MUNINN_IMPORT_MAX_LINE_BYTES (65536) for a line's other fields: a file at the bound must export as a line the import reads",
    ]);
    expect(
      loadConfig({ MUNINN_FILE_MAX_BYTES: '49152', MUNINN_IMPORT_MAX_LINE_BYTES: '65536' }).store.fileMaxBytes,
    ).toBe(49152);
    // Unset, it follows a lowered line bound (a deployment that lowered only the line bound still starts).
    expect(loadConfig({ MUNINN_IMPORT_MAX_LINE_BYTES: '1048576' }).store.fileMaxBytes).toBe(1048576 - 16384);
    expect(loadConfig({}).store.fileMaxBytes).toBe(32 * 1024 * 1024);
  });

  it('refuses a body depth that cannot hold the deepest filter', () => {
    expect(problemsOf({ MUNINN_FILTER_MAX_DEPTH: '30', MUNINN_BODY_MAX_DEPTH: '40' })).toEqual([
      'MUNINN_BODY_MAX_DEPTH must be at least 2 × MUNINN_FILTER_MAX_DEPTH + 4 (64)',
    ]);
  });
});

export { deletePrefix, startRedisForTests, uniqueTestPrefix, type TestRedis } from './redis-server';
export { createTestDatabase, assertTestPostgres, type TestDatabase } from './postgres-server';
export { startTestApp, storeModes, type StoreMode, type TestApp, type TestAppOptions } from './test-app';
export {
  droppableRequest,
  metricValue,
  requestTo,
  untilSlots,
  type DroppableRequest,
  type TestRequest,
  type TestResponse,
} from './http-request';
export {
  isPlannerRequest,
  mentions,
  startFakeLlmServer,
  type FakeLlmServer,
  type FakeLlmReply,
  type FakeLlmRequest,
  type FakeLlmScript,
} from './fake-llm-server';
export {
  buildDist,
  startAppProcess,
  startServing,
  waitHealthy,
  waitReady,
  type AppProcess,
  type ServingProcess,
  waitConsumers,
} from './app-process';
export * from './own-redis';
export { freePort } from './free-port';
export { callMcpTool, parseMcpBody } from './mcp-body';
export { eventually, type PollOptions } from './eventually';
export { seedFromPgliteTemplate } from './pglite-template';
export { fakeEmbeddingBody } from './fake-embeddings';

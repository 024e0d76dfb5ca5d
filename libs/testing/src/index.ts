export { startRedisForTests, uniqueTestPrefix, type TestRedis } from './redis-server';
export { createTestDatabase, assertTestPostgres, type TestDatabase } from './postgres-server';

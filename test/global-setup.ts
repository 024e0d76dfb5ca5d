// Jest globalSetup for the e2e project. It runs in jest's parent process before the workers start,
// so the URLs it puts into process.env reach every test file.
//
// Redis: REDIS_URL if set (CI), else a redis-server spawned on a free port, else testcontainers.
// PostgreSQL: only when MUNINN_TEST_DATABASE_URL is set, checked (reachable, pgvector installable) and
// never spawned; suites then make their own database with createTestDatabase(). Without it the
// store runs on embedded PGlite.
// Nothing here flushes or deletes data: tests use unique prefixes and databases named muninn_test_*.
// Relative imports: jest applies no moduleNameMapper to globalSetup, so `@app/testing` would not resolve.
import { assertTestPostgres } from '../libs/testing/src/postgres-server';
import { startRedisForTests } from '../libs/testing/src/redis-server';

declare global {
  var __MUNINN_TEST_TEARDOWN__: (() => Promise<void>) | undefined;
}

export default async function globalSetup(): Promise<void> {
  const redis = await startRedisForTests();
  process.env.REDIS_URL = redis.url;
  globalThis.__MUNINN_TEST_TEARDOWN__ = redis.stop;

  const pgUrl = process.env.MUNINN_TEST_DATABASE_URL;
  let pg = 'not set: store tests use embedded PGlite only';
  try {
    if (pgUrl) pg = await assertTestPostgres(pgUrl);
  } catch (error) {
    await redis.stop(); // jest runs no teardown when setup fails
    throw error;
  }
  process.stdout.write(`\n[e2e] Redis ${redis.url} (${redis.source}); MUNINN_TEST_DATABASE_URL ${pg}\n`);
}

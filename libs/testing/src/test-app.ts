import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { NestFactory } from '@nestjs/core';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig, loadConfig } from '@app/config';
import { configureHttpApp, createHttpAdapter } from '../../../apps/gateway/src/http/configure-app';
import { StandaloneModule } from '../../../apps/standalone/src/standalone.module';
import { createTestDatabase, TestDatabase } from './postgres-server';
import { requestTo, TestRequest } from './http-request';
import { deletePrefix, uniqueTestPrefix } from './redis-server';
import { seedFromPgliteTemplate } from './pglite-template';

export type StoreMode = 'pglite' | 'postgres';

export interface TestAppOptions {
  store?: StoreMode;
  rootApiKey?: string;
  /** Extra environment variables (validated like real ones). */
  env?: Record<string, string>;
  /** Keep using this data folder (restart tests); otherwise a fresh temp folder. */
  dataDir?: string;
  /**
   * Embedded store only: create the database in the folder as a first start does, rather than copy the
   * migrated template (pglite-template.ts). For the suites that test a first start itself.
   */
  freshStore?: boolean;
}

/** A running Muninn (all apps in this process, BullMQ on the test Redis) reachable over real HTTP. */
export interface TestApp {
  url: string;
  config: AppConfig;
  dataDir: string;
  /** The Nest application itself, to reach providers (`nest.get(JobBus)`) or stop a worker. */
  nest: NestFastifyApplication;
  request: TestRequest;
  close(opts?: { keepData?: boolean }): Promise<void>;
}

/** The store modes to run a suite against: PGlite always, PostgreSQL when the CI provides one. */
export function storeModes(): StoreMode[] {
  return process.env.MUNINN_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'muninn-test-'));
  let db: TestDatabase | null = null;
  if (opts.store === 'postgres') {
    const base = process.env.MUNINN_TEST_DATABASE_URL;
    if (!base) throw new Error('store "postgres" needs MUNINN_TEST_DATABASE_URL');
    db = await createTestDatabase(base);
  } else if (!opts.freshStore && !opts.env?.DATABASE_URL && !existsSync(join(dataDir, 'pgdata'))) {
    await seedFromPgliteTemplate(join(dataDir, 'pgdata'));
  }
  // A prefix of its own unless the suite chose one (a suite that restarts on one prefix keeps its keys).
  const ownPrefix = opts.env?.MUNINN_QUEUE_PREFIX ? null : uniqueTestPrefix();
  const config = loadConfig({
    REDIS_URL: process.env.REDIS_URL,
    ...(ownPrefix ? { MUNINN_QUEUE_PREFIX: ownPrefix } : {}),
    MUNINN_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    // Directory summaries refreshed on every write (no coalescing window), so `wait:true` also means
    // "its directory summary is current"; tests of coalescing set their own interval.
    MUNINN_SIDECAR_INTERVAL_MS: '0',
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...(opts.rootApiKey ? { MUNINN_ROOT_API_KEY: opts.rootApiKey } : {}),
    ...opts.env,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    StandaloneModule.forRoot(config),
    createHttpAdapter(config),
    { logger: ['error', 'fatal'], abortOnError: false },
  );
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    url,
    config,
    dataDir,
    nest: app,
    request: requestTo(url),
    async close(c = {}) {
      await app.close();
      if (db) await db.drop();
      if (ownPrefix && !c.keepData) await deletePrefix(config.redis.url, ownPrefix);
      if (!c.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// Stops what test/global-setup.ts started (a spawned redis-server or a container); a server given by
// REDIS_URL is left running and untouched.
export default async function globalTeardown(): Promise<void> {
  const teardown = globalThis.__MUNINN_TEST_TEARDOWN__;
  globalThis.__MUNINN_TEST_TEARDOWN__ = undefined;
  await teardown?.();
}

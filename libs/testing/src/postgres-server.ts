import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** A throw-away database on a PostgreSQL server; `drop()` removes it (idempotent). */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
  /**
   * Runs one statement on a connection of its own and returns its rows: suites that stop and restart
   * servers on purpose hold no connection between their checks.
   */
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
}

// Only databases with this shape are ever created or dropped here.
const TEST_DB_NAME = /^muninn_test_[0-9a-f]{12}$/;

/**
 * Creates `muninn_test_<random>` on the server of `baseUrl` (whose role needs CREATEDB) with the
 * `vector` extension, so each e2e suite gets an isolated database. Call `drop()` in `afterAll`.
 */
export async function createTestDatabase(
  baseUrl: string,
  extensions: readonly string[] = ['vector'],
): Promise<TestDatabase> {
  const name = `muninn_test_${randomBytes(6).toString('hex')}`;
  await withClient(baseUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = databaseUrl(baseUrl, name);
  const drop = (): Promise<void> => dropTestDatabase(baseUrl, name);
  try {
    await withClient(url, async (db) => {
      for (const extension of extensions) await db.query(`CREATE EXTENSION IF NOT EXISTS "${extension}"`);
    });
  } catch (error) {
    await drop();
    throw error;
  }
  const query = <T>(text: string, params: unknown[] = []): Promise<T[]> =>
    withClient(url, async (client) => (await client.query(text, params)).rows as T[]);
  return { url, name, drop, query };
}

/**
 * Checks that `url` answers and that pgvector is installable there; throws with the reason if not.
 * Returns the server's version string. Reads only: it creates nothing.
 */
export async function assertTestPostgres(url: string): Promise<string> {
  try {
    return await withClient(url, async (client) => {
      const version = await client.query<{ server_version: string }>('SHOW server_version');
      const vector = await client.query<{ default_version: string }>(
        "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'",
      );
      if (vector.rowCount === 0) throw new Error('the pgvector extension is not installed on this server');
      return `PostgreSQL ${version.rows[0].server_version}, pgvector ${vector.rows[0].default_version}`;
    });
  } catch (error) {
    throw new Error(`MUNINN_TEST_DATABASE_URL (${redact(url)}) is not usable for tests: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function dropTestDatabase(baseUrl: string, name: string): Promise<void> {
  if (!TEST_DB_NAME.test(name)) throw new Error(`Refusing to drop "${name}": not a test database name`);
  // WITH (FORCE) (PostgreSQL 13+) ends connections a test forgot to close.
  await withClient(baseUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

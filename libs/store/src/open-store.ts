import { join } from 'node:path';
import { Db } from './db/db.port';
import { PgDb } from './db/pg.db';
import { PgliteDb } from './db/pglite.db';
import { migrate } from './migrations/migrate';

/** Opens the store: the PostgreSQL server at `databaseUrl`, else embedded PGlite in `dataDir`; migrates it. */
export async function openStore(opts: { databaseUrl: string | null; dataDir: string }): Promise<Db> {
  const db: Db = opts.databaseUrl
    ? new PgDb(opts.databaseUrl)
    : await PgliteDb.open(opts.dataDir.startsWith('memory://') ? opts.dataDir : join(opts.dataDir, 'pgdata'));
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}

import { join } from 'node:path';
import { WorkAccount } from '@app/contracts';
import { Db } from './db/db.port';
import { PgDb } from './db/pg.db';
import { PgliteWorkerDb } from './db/pglite-worker.db';
import { migrate } from './migrations/migrate';

/**
 * Opens the store: the PostgreSQL server at `databaseUrl`, else embedded PGlite in `dataDir` (on a
 * worker thread); migrates it. Statements run under `statementTimeoutMs` (0: none). `workAccount` names the
 * account each statement is for: PGlite's one connection takes the waiting statements account by account.
 */
export async function openStore(opts: {
  databaseUrl: string | null;
  dataDir: string;
  statementTimeoutMs?: number;
  workAccount?: WorkAccount;
}): Promise<Db> {
  const statementTimeoutMs = opts.statementTimeoutMs ?? 0;
  const pgdata = opts.dataDir.startsWith('memory://') ? opts.dataDir : join(opts.dataDir, 'pgdata');
  const db: Db = opts.databaseUrl
    ? new PgDb(opts.databaseUrl, 10, statementTimeoutMs)
    : await PgliteWorkerDb.open(pgdata, { statementTimeoutMs, workAccount: opts.workAccount });
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}

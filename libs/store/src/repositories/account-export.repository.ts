import { Db } from '../db/db.port';
import { streamInTransaction } from '../db/stream-in-transaction';
import { ExportLine, ExportReader } from './export-reader';

export {
  ACCOUNT_EXPORT_FORMAT,
  byteGroups,
  EXPORT_PAGE_BYTES,
  EXPORT_PAGE_ROWS,
  type ExportLine,
} from './export-reader';

/**
 * How long an export on PostgreSQL may wait for its client between two reads before the server ends its
 * snapshot (the stream then ends without its `end` line: incomplete). A client that reads keeps it open.
 */
export const EXPORT_IDLE_MS = 5 * 60_000;

/**
 * An account's data as lines, read page by page in key order (docs/limits-and-security.md, "Exporting
 * an account"): the account with its users and own limits, every node (files with their bodies), every
 * session with its archives and live messages, then an `end` line with the counts, which a reader
 * checks to know the export is whole. Derived state (embeddings, summaries, term statistics, ledgers)
 * is left out: an import rebuilds it. Each page is its own statement under the store's timeout. On
 * PostgreSQL all of them run in one read-only REPEATABLE READ transaction, so the export is the account
 * at one instant whatever is written meanwhile (a file moved during the export is in it once, under its
 * old name); it holds one pooled connection while it runs. PGlite runs one statement at a time for the
 * whole process, so there each page is its own read and writes made meanwhile may or may not appear.
 */
export class AccountExportRepository {
  constructor(private readonly db: Db) {}

  /**
   * The account's lines, or with `userId` one user's (their space and sessions: docs/limits-and-security.md,
   * "Exporting one user"); null when there is no such account (or user). Stops when the consumer stops asking.
   */
  async open(accountId: string, userId: string | null = null): Promise<AsyncGenerator<ExportLine> | null> {
    const { rows } =
      userId === null
        ? await this.db.query('SELECT 1 FROM accounts WHERE account_id = $1', [accountId])
        : await this.db.query('SELECT 1 FROM users WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
    if (!rows[0]) return null;
    if (this.db.kind === 'pglite') return new ExportReader(this.db, userId).lines(accountId);
    return streamInTransaction(this.db, { snapshot: true, idleTimeoutMs: EXPORT_IDLE_MS }, (tx) =>
      new ExportReader(tx, userId).lines(accountId),
    );
  }
}

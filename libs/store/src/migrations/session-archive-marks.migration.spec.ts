import { PgliteDb } from '../db/pglite.db';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { SESSION_ARCHIVE_MARKS_MIGRATION } from './session-archive-marks.migration';

/** An existing database gets the marks of what its sessions used, deleted sessions included (by their tasks). */
describe('session archive marks migration', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await PgliteDb.open('memory://');
    await migrate(
      db,
      MIGRATIONS.filter((m) => m.version < SESSION_ARCHIVE_MARKS_MIGRATION.version),
    );
  }, 60_000);
  afterAll(() => db?.close());

  it('fills each session id with the highest of its archives, commit count and commit tasks', async () => {
    const owner = ['acme', 'alice'];
    await db.query(
      `INSERT INTO sessions (account_id, user_id, session_id, commit_count) VALUES ($1, $2, 'live', 3), ($1, $2, 'fresh', 0)`,
      owner,
    );
    await db.query(
      `INSERT INTO session_archives (account_id, user_id, session_id, archive_index, messages, task_id)
       VALUES ($1, $2, 'live', 4, '[]', 't4')`,
      owner,
    );
    const task = (id: string, sid: string, index: unknown) =>
      db.query(
        `INSERT INTO session_tasks (task_id, account_id, user_id, task_type, resource_id, status, job)
         VALUES ($1, $2, $3, 'session_commit', $4, 'completed', $5::jsonb)`,
        [id, ...owner, sid, JSON.stringify({ archiveIndex: index })],
      );
    // The deleted session left only its tasks; a malformed job is ignored, not a failed start-up.
    await task('t-gone-2', 'gone', 2);
    await task('t-gone-7', 'gone', 7);
    await task('t-odd', 'odd', 'seven');
    const upTo = MIGRATIONS.filter((m) => m.version <= SESSION_ARCHIVE_MARKS_MIGRATION.version);
    expect(await migrate(db, upTo)).toEqual([SESSION_ARCHIVE_MARKS_MIGRATION.version]);
    const { rows } = await db.query<{ session_id: string; highest_index: number }>(
      'SELECT session_id, highest_index FROM session_archive_marks ORDER BY session_id',
    );
    expect(rows).toEqual([
      { session_id: 'gone', highest_index: 7 },
      { session_id: 'live', highest_index: 4 },
    ]);
  });
});

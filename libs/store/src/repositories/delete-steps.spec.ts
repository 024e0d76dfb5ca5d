import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { eventually } from '@app/testing';
import { PgDb } from '../db/pg.db';
import { deleteInSteps } from './delete-steps';

const BASE = process.env.MUNINN_TEST_DATABASE_URL;

// delete-steps.ts: a row another transaction updates while a step's statement runs is skipped by that statement
// (its new version has another ctid than the one picked); the steps go on until nothing is left.
(BASE ? describe : describe.skip)('deleting in steps while another transaction updates a row, on PostgreSQL', () => {
  const table = `steps_${randomUUID().replace(/-/g, '')}`;
  let db: PgDb;
  let other: Client;
  beforeAll(async () => {
    db = new PgDb(BASE as string, 2, 60_000);
    other = new Client({ connectionString: BASE });
    await other.connect();
    await db.query(`CREATE TABLE ${table} (uri text PRIMARY KEY, dir text NOT NULL, body text NOT NULL)`);
  });
  afterAll(async () => {
    await db?.query(`DROP TABLE IF EXISTS ${table}`);
    await db?.close();
    await other?.end();
  });

  it.each([
    ['fewer rows than a step', 10],
    ['more rows than a step', 2],
  ])('deletes a row updated during the delete (%s)', async (_, step) => {
    const dir = `d-${step}`;
    const uris = ['a', 'b', 'c', 'd', 'e'].map((n) => `${dir}/${n}`);
    for (const uri of uris) await db.query(`INSERT INTO ${table} VALUES ($1, $2, 'x')`, [uri, dir]);
    // The other transaction holds its update of `c` (an index job writing a node's vector, say).
    await other.query('BEGIN');
    await other.query(`UPDATE ${table} SET body = 'indexed' WHERE uri = $1`, [`${dir}/c`]);
    const tag = `steps-${randomUUID()}`;
    const deleting = db.transaction((tx) => deleteInSteps(tx, table, `dir = $1 /* ${tag} */`, [dir], step, 'uri'));
    // The delete waits on the held row, having picked its old version's ctid; then the update commits.
    await eventually(
      async () =>
        // Read on the pool's free connection: `other` is inside its transaction, whose view of
        // pg_stat_activity is taken once.
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
            [`%${tag}%`],
          )
        ).rows[0]!.n === 1,
      { ms: 10_000, pollMs: 20 },
    );
    await other.query('COMMIT');
    expect((await deleting).sort()).toEqual(uris);
    expect((await db.query(`SELECT uri FROM ${table} WHERE dir = $1`, [dir])).rows).toEqual([]);
  });
});

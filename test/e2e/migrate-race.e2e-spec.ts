// Several processes started at once against a fresh PostgreSQL database (the gateway, retrievers and
// assemblers of one deployment) all migrate it on start-up. Only one may apply the migrations; the
// others wait for it and then find nothing to do. Before the bookkeeping table was created under the
// migration lock, two concurrent `CREATE TABLE IF NOT EXISTS schema_migrations` could collide in the
// catalogue (`pg_type_typname_nsp_index`) and one process exited on start. PGlite has one connection,
// so this suite needs the CI's PostgreSQL server.
import { migrate, PgDb } from '@app/store';
import { createTestDatabase, TestDatabase } from '@app/testing';

const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
/** Concurrent start-ups per fresh database, and fresh databases per run (the race is a narrow window). */
const PROCESSES = 8;
const ROUNDS = 3;

suite('concurrent migrations on a fresh database (PostgreSQL)', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  it(`${PROCESSES} start-ups at once, ${ROUNDS} times: every one succeeds and each migration is applied once`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const pg = await createTestDatabase(PG!);
      databases.push(pg);
      const dbs = Array.from({ length: PROCESSES }, () => new PgDb(pg.url, 2, 0));
      try {
        const results = await Promise.allSettled(dbs.map((db) => migrate(db)));
        const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
        expect(failures).toEqual([]);
        // One start-up applied them all; the others found nothing left to do.
        const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])).sort((a, b) => a - b);
        expect(results.filter((r) => r.status === 'fulfilled' && r.value.length > 0)).toHaveLength(1);
        const { rows } = await dbs[0]!.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY 1');
        expect(applied.length).toBeGreaterThan(0);
        expect(applied).toEqual(rows.map((r) => Number(r.version)));
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
    }
  }, 120_000);
});

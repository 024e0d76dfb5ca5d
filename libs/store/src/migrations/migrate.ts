import { Db } from '../db/db.port';
import { MIGRATIONS, Migration } from './migrations';

/**
 * Applies every migration newer than the database's version, all in one transaction under the
 * migration lock (docs/architecture.md, "Migrations at start-up"); returns the versions it applied.
 */
export async function migrate(db: Db, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  await db.transaction(
    async (tx) => {
      // Serialises concurrent start-ups of several processes against one PostgreSQL server. The
      // bookkeeping table is created under the lock too: two concurrent CREATE TABLE IF NOT EXISTS
      // collide in the catalogue (pg_type_typname_nsp_index) and one process failed to start.
      if (tx.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(4242001)');
      await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(rows.map((r) => Number(r.version)));
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        for (const stmt of splitStatements(m.sql)) await tx.query(stmt);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        applied.push(m.version);
      }
      // A migration may rewrite a large table: it is not bound by the request-sized statement timeout.
    },
    { statementTimeoutMs: 0 },
  );
  return applied;
}

/** Splits a migration script on top-level semicolons (our migrations hold no functions or quoted `;`). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) =>
      s
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter((s) => s.length > 0);
}

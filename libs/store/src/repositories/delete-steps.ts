import { Db } from '../db/db.port';

/**
 * Deletes the rows `where` selects from `table` in statements of at most `step` rows each (by ctid), inside
 * the caller's transaction: a large subtree, user or account as one DELETE would run past the store's statement
 * timeout, and its deletion would never succeed. With `returning`, the deleted rows' values of that column.
 *
 * On PostgreSQL a row another transaction updates while a statement runs is skipped by that statement: the
 * statement waits for the update, then finds the row's new version under another ctid than the one it picked
 * (read committed re-checks the condition, `ctid = ANY(…)`, on the new version). A statement that deleted fewer
 * rows than its step therefore does not mean nothing is left: the steps go on until one deletes nothing, which
 * picks such rows up at their new ctid (seen: a file whose index job wrote its vector during a recursive delete
 * of its directory was left in place). PGlite runs one transaction at a time, so nothing is skipped there.
 */
export async function deleteInSteps(
  tx: Pick<Db, 'query' | 'kind'>,
  table: string,
  where: string,
  params: unknown[],
  step: number,
  returning?: string,
): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const { rows, rowCount } = await tx.query<Record<string, string>>(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ${step}))` +
        (returning ? ` RETURNING ${returning}` : ''),
      params,
    );
    if (returning) for (const r of rows) out.push(r[returning]!);
    const n = rowCount ?? 0;
    if (n === 0 || (n < step && tx.kind === 'pglite')) return out;
  }
}

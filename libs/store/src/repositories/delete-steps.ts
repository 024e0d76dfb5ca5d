import { Db } from '../db/db.port';

/**
 * Deletes the rows `where` selects from `table` in statements of at most `step` rows each (by ctid), inside
 * the caller's transaction: a large subtree, user or account as one DELETE would run past the store's statement
 * timeout, and its deletion would never succeed. With `returning`, the deleted rows' values of that column.
 */
export async function deleteInSteps(
  tx: Pick<Db, 'query'>,
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
    if ((rowCount ?? 0) < step) return out;
  }
}

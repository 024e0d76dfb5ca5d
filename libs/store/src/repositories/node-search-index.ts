import { Db } from '../db/db.port';

/**
 * Ensures an HNSW cosine index over embeddings of dimension `dim`. The `embedding` column has no fixed
 * dimension (embedders can change), and HNSW needs one, so the index is per dimension: an expression
 * index on `embedding::vector(dim)`, partial on `vector_dims(embedding) = dim`, matching the
 * expression the search orders by. On PostgreSQL it is built CONCURRENTLY so writes go on meanwhile;
 * a build left invalid by a crash is dropped and redone. Returns whether it had to build. The graph
 * should fit in `maintenance_work_mem` (about rows × dim × 6 bytes), or the build slows down severalfold.
 */
export async function ensureVectorIndex(db: Db, dim: number): Promise<boolean> {
  if (!Number.isInteger(dim) || dim < 1 || dim > 2000) {
    // pgvector's HNSW limit for `vector` is 2,000 dimensions; larger embeddings are searched exactly.
    return false;
  }
  const name = `nodes_embedding_hnsw_${dim}`;
  const { rows } = await db.query<{ valid: boolean }>(
    `SELECT i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1`,
    [name],
  );
  if (rows[0]?.valid) return false;
  const concurrently = db.kind === 'postgres' ? ' CONCURRENTLY' : '';
  if (rows[0]) await db.exec(`DROP INDEX${concurrently} IF EXISTS ${name}`);
  try {
    await db.exec(
      `CREATE INDEX${concurrently} IF NOT EXISTS ${name} ON nodes USING hnsw ((embedding::vector(${dim})) vector_cosine_ops) WHERE vector_dims(embedding) = ${dim}`,
    );
  } catch (err) {
    // Another process started the same build first; its index serves us too.
    if (!/already exists|duplicate key/i.test((err as Error).message)) throw err;
    return false;
  }
  return true;
}

/** Most rows {@link countForeignVectors} counts: enough to say "many", bounded at start-up. */
export const FOREIGN_VECTORS_CAP = 100_000;

/**
 * How many nodes hold a vector from an embedder other than `embedderId`, up to
 * {@link FOREIGN_VECTORS_CAP} (then CAP + 1). Search ignores such vectors (the dimensions or the space
 * differ), so those nodes are found by their text only until a reindex re-embeds them.
 */
export async function countForeignVectors(db: Db, embedderId: string): Promise<number> {
  const { rows } = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM nodes WHERE embedder_id IS NOT NULL AND embedder_id <> $1 LIMIT $2) s`,
    [embedderId, FOREIGN_VECTORS_CAP + 1],
  );
  return Number(rows[0]?.n ?? 0);
}

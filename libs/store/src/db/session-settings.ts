/**
 * Session settings of the embedded store's one connection, so a find needs no transaction to set them
 * (docs/architecture.md, "Performance"): filtered HNSW scans keep walking until enough rows pass the
 * tenant and filter predicates. PostgreSQL connections get the same as connection options (pg.db.ts).
 */
export const PGLITE_SESSION_SETTINGS = `SET hnsw.iterative_scan = relaxed_order`;

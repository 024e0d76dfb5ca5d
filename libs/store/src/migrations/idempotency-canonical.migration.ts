import type { Migration } from './migration';

/**
 * Canonical fingerprints (docs/limits-and-security.md, "Retrying a write"): a key keeps the digest of its request in
 * canonical form (query as parsed, keys sorted) beside the digest over the request as sent, which stays in
 * `fingerprint`: a gateway of the version before, during a rolling deploy or after a rollback, still recognises a
 * retry of the same bytes, and this version recognises that version's keys by the same column.
 */
export const IDEMPOTENCY_CANONICAL_MIGRATION: Migration = {
  version: 108,
  name: 'idempotency canonical fingerprints',
  sql: `ALTER TABLE idempotency_keys ADD COLUMN canonical_fingerprint text;`,
};

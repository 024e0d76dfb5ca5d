import type { Migration } from './migration';

/**
 * Retried writes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"): one row per caller
 * and key, held by the attempt whose `token` it names; `applied` turns true in the same transaction as
 * the attempt's first write, and the reply is kept for the key's retries until `expires_at`.
 */
export const IDEMPOTENCY_KEYS_MIGRATION: Migration = {
  version: 101,
  name: 'idempotency keys',
  sql: `
CREATE TABLE idempotency_keys (
  account_id text NOT NULL,
  user_id text NOT NULL,
  idem_key text NOT NULL,
  fingerprint text NOT NULL,
  token text NOT NULL,
  applied boolean NOT NULL DEFAULT false,
  reply_status int,
  reply_type text,
  reply_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, user_id, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
CREATE INDEX idempotency_keys_account ON idempotency_keys (account_id, created_at);
`,
};

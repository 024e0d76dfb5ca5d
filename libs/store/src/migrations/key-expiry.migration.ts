import type { Migration } from './migration';

/**
 * A rotated key kept for a while (docs/limits-and-security.md, "Keys and roles"): the key a rotation
 * replaced may stay valid until `expires_at` so agents can move to the new one; null never expires.
 */
export const KEY_EXPIRY_MIGRATION: Migration = {
  version: 102,
  name: 'api key expiry',
  sql: `ALTER TABLE api_keys ADD COLUMN expires_at timestamptz`,
};

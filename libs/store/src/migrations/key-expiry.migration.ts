import type { Migration } from './migration';

/**
 * A rotated key kept for a while (docs/limits-and-security.md, "Keys and roles"): the key a rotation
 * replaced may stay valid until `expires_at` so agents can move to the new one (null never expires);
 * `last_used_at` (to the minute) shows the operator when the old key's last agent moved.
 */
export const KEY_EXPIRY_MIGRATION: Migration = {
  version: 102,
  name: 'api key expiry and last use',
  sql: `ALTER TABLE api_keys ADD COLUMN expires_at timestamptz, ADD COLUMN last_used_at timestamptz`,
};

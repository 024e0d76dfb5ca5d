import type { Migration } from './migration';

/**
 * One random id per store, made once: processes of one deployment read the same id, so the queue fence
 * can tell another deployment's processes on the same Redis prefix from its own (docs/operations.md,
 * "One deployment per queue prefix").
 */
export const DEPLOYMENT_MIGRATION: Migration = {
  version: 92,
  name: 'deployment id',
  sql: `
CREATE TABLE deployment (
  id         text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO deployment (id) VALUES (gen_random_uuid()::text);
`,
};

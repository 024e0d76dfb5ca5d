import type { Migration } from './migration';

/**
 * The admin audit trail (docs/limits-and-security.md, "Audit trail"). Its events name the account acted
 * on in `subject_account`, not `account_id`, and have no foreign key: an account's deletion is itself
 * an event, and the trail keeps it (ids, roles and limits only, never content or keys) until
 * `MUNINN_AUDIT_RETENTION_DAYS` have passed. The root key acts as no account's user: its actor columns
 * are null.
 */
export const AUDIT_EVENTS_MIGRATION: Migration = {
  version: 99,
  name: 'admin audit trail',
  sql: `
CREATE TABLE audit_events (
  id               bigserial PRIMARY KEY,
  at               timestamptz NOT NULL DEFAULT now(),
  action           text NOT NULL,
  subject_account  text NOT NULL,
  subject_user     text,
  actor_account    text,
  actor_user       text,
  actor_role       text NOT NULL,
  details          jsonb NOT NULL DEFAULT '{}'::jsonb,
  request_id       text
);
CREATE INDEX audit_events_subject ON audit_events (subject_account, id);
CREATE INDEX audit_events_at ON audit_events (at);
`,
};

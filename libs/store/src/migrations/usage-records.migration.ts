import type { Migration } from './migration';

/**
 * Usage records (`POST /sessions/{id}/used`) are bounded like live messages (docs/sessions.md, "Usage
 * records"): a commit deletes the records it consumes (they were kept, marked, until the session's deletion,
 * but nothing read them again), and the records waiting for a commit count toward the account's content
 * bytes, a record weighing its URI and its skill call as stored. Same delta rows as the node and message
 * triggers.
 */
export const USAGE_RECORDS_MIGRATION: Migration = {
  version: 95,
  name: 'usage records consumed by deletion, counted in the account usage',
  sql: `
DELETE FROM session_usage WHERE consumed_by IS NOT NULL;

CREATE FUNCTION usage_record_bytes(uri text, skill jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT octet_length(uri)::bigint + coalesce(octet_length(skill::text), 0) $$;

CREATE FUNCTION usage_records_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT n.account_id, 0, sum(usage_record_bytes(n.uri, n.skill)) FROM new_rows n GROUP BY 1; RETURN NULL; END $$;

CREATE FUNCTION usage_records_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT o.account_id, 0, -sum(usage_record_bytes(o.uri, o.skill)) FROM old_rows o GROUP BY 1; RETURN NULL; END $$;

CREATE TRIGGER session_usage_account_usage_added AFTER INSERT ON session_usage REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_records_added();
CREATE TRIGGER session_usage_account_usage_removed AFTER DELETE ON session_usage REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_records_removed();

INSERT INTO account_usage (account_id, nodes, content_bytes)
SELECT account_id, 0, sum(usage_record_bytes(uri, skill)) FROM session_usage GROUP BY 1;
`,
};

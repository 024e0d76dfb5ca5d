import type { Migration } from './migration';

/**
 * Live session messages count toward their account's content bytes (docs/limits-and-security.md, "Storage
 * quota"). Without them an account could hold `MUNINN_ACCOUNT_MAX_SESSIONS` sessions of
 * `MUNINN_SESSION_MAX_LIVE_TOKENS` each, hundreds of gigabytes, whatever its content quota. A message's size
 * is its text, parts and client fields as stored; a commit deletes the messages it archives (their bytes go)
 * and writes the archive (its bytes come), so committing moves usage rather than adding it. Same delta rows
 * as the node triggers: statement-level, one row per account and statement, `nodes` 0.
 */
export const MESSAGE_USAGE_MIGRATION: Migration = {
  version: 94,
  name: 'live session messages in the account usage',
  sql: `
CREATE FUNCTION message_bytes(content text, parts jsonb, extra jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT octet_length(content)::bigint + coalesce(octet_length(parts::text), 0) + coalesce(octet_length(extra::text), 0) $$;

CREATE FUNCTION message_usage_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT n.account_id, 0, sum(message_bytes(n.content, n.parts, n.extra)) FROM new_rows n GROUP BY 1; RETURN NULL; END $$;

CREATE FUNCTION message_usage_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT o.account_id, 0, -sum(message_bytes(o.content, o.parts, o.extra)) FROM old_rows o GROUP BY 1; RETURN NULL; END $$;

CREATE TRIGGER messages_account_usage_added AFTER INSERT ON messages REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION message_usage_added();
CREATE TRIGGER messages_account_usage_removed AFTER DELETE ON messages REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION message_usage_removed();

INSERT INTO account_usage (account_id, nodes, content_bytes)
SELECT account_id, 0, sum(message_bytes(content, parts, extra)) FROM messages GROUP BY 1;
`,
};

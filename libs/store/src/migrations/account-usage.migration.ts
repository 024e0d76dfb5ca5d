import type { Migration } from './migration';

/**
 * What each account stores, kept by the store itself so the quota check of a write is one index lookup
 * (docs/limits-and-security.md, "Storage quota"). Like `term_df`, rows are append-only deltas: statement-level
 * triggers add one row per account a statement changed, so concurrent writers never update the same row and
 * cannot deadlock on it; the quota check sums them and folds them once they are many. `nodes` counts files
 * and directories, `content_bytes` the UTF-8 bytes of their content (`octet_length` reads a stored value's
 * size without detoasting it, so the triggers cost no content reads).
 */
export const ACCOUNT_USAGE_MIGRATION: Migration = {
  version: 93,
  name: 'per-account storage usage',
  sql: `
CREATE TABLE account_usage (
  account_id    text NOT NULL,
  nodes         bigint NOT NULL,
  content_bytes bigint NOT NULL
);
CREATE INDEX account_usage_account ON account_usage (account_id);

CREATE FUNCTION account_usage_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT n.account_id, count(*), coalesce(sum(octet_length(n.content)), 0) FROM new_rows n GROUP BY 1; RETURN NULL; END $$;

CREATE FUNCTION account_usage_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT o.account_id, -count(*), -coalesce(sum(octet_length(o.content)), 0) FROM old_rows o GROUP BY 1; RETURN NULL; END $$;

CREATE FUNCTION account_usage_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO account_usage (account_id, nodes, content_bytes)
  SELECT c.account_id, 0, sum(c.bytes) FROM (
    SELECT n.account_id, octet_length(n.content)::bigint AS bytes FROM new_rows n
    UNION ALL
    SELECT o.account_id, -octet_length(o.content)::bigint FROM old_rows o
  ) c GROUP BY 1 HAVING sum(c.bytes) <> 0; RETURN NULL; END $$;

CREATE TRIGGER nodes_account_usage_added AFTER INSERT ON nodes REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION account_usage_added();
CREATE TRIGGER nodes_account_usage_removed AFTER DELETE ON nodes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION account_usage_removed();
CREATE TRIGGER nodes_account_usage_changed AFTER UPDATE ON nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION account_usage_changed();

INSERT INTO account_usage (account_id, nodes, content_bytes)
SELECT account_id, count(*), coalesce(sum(octet_length(content)), 0) FROM nodes GROUP BY 1;
`,
};

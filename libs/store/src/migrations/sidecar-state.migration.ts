import type { Migration } from './migration';

/**
 * Directory summary scheduling moves off the directory's node row into a row of its own
 * (docs/architecture.md#write-path). Every index job claims its directory's refresh; on the node row
 * that claim was an UPDATE of a wide row carrying the summary's tsvector and embedding, and whenever
 * the indexed due mark changed (each coalesced refresh) PostgreSQL had to add the new row version to
 * every index, GIN and HNSW included: one graph insertion and one lexeme insertion per summary lexeme
 * for each write into a busy directory. A claim now touches a narrow row with one small index.
 * The children of a directory are read in URI order through (account_id, parent_uri, uri), so the
 * first few hundred cost the same in a directory of ten thousand; the count of a large directory's
 * children is remembered (`children`, `counted_at`) for a few seconds instead of being taken again at
 * every refresh.
 */
export const SIDECAR_STATE_MIGRATION: Migration = {
  version: 70,
  name: 'directory summary scheduling in its own table; children by parent in URI order',
  sql: `
CREATE TABLE sidecar_state (
  account_id   text NOT NULL,
  uri          text NOT NULL,
  refreshed_at timestamptz,
  claim        bigint NOT NULL DEFAULT 0,
  due          timestamptz,
  children     integer,
  counted_at   timestamptz,
  PRIMARY KEY (account_id, uri)
);
CREATE INDEX sidecar_state_due ON sidecar_state (due) WHERE due IS NOT NULL;
INSERT INTO sidecar_state (account_id, uri, refreshed_at, claim, due)
SELECT account_id, uri, sidecar_at, sidecar_claim, sidecar_due FROM nodes
WHERE kind = 'directory' AND (sidecar_at IS NOT NULL OR sidecar_due IS NOT NULL OR sidecar_claim <> 0);
DROP INDEX nodes_sidecar_due;
ALTER TABLE nodes DROP COLUMN sidecar_at, DROP COLUMN sidecar_claim, DROP COLUMN sidecar_due;
-- A deleted directory (rm, move, account or user removal) takes its schedule with it.
CREATE FUNCTION sidecar_state_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM sidecar_state s USING old_rows o
  WHERE o.kind = 'directory' AND s.account_id = o.account_id AND s.uri = o.uri; RETURN NULL; END $$;
CREATE TRIGGER nodes_sidecar_state_removed AFTER DELETE ON nodes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sidecar_state_removed();
CREATE INDEX nodes_parent_uri ON nodes (account_id, parent_uri, uri);
DROP INDEX nodes_parent;
`,
};

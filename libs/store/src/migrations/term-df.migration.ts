import type { Migration } from './migration';

/**
 * Document frequencies of search lexemes, kept by the store itself so weighting a query is one index
 * lookup instead of counting (docs/architecture.md, "Performance"). Rows are append-only deltas:
 * statement-level triggers add one row per (account, owner view, lexeme) a statement changed, so
 * concurrent writers never update the same row and cannot deadlock on it; readers sum the deltas and
 * compact the lexemes they read once those hold many rows. `owner_id` is the node's owner_user_id, or
 * '' for nodes every user of the account sees; the lexeme '' counts nodes.
 */
export const TERM_DF_MIGRATION: Migration = {
  version: 90,
  name: 'incremental lexeme document frequencies',
  sql: `
CREATE TABLE term_df (
  account_id text NOT NULL,
  owner_id   text NOT NULL,
  lexeme     text NOT NULL,
  delta      bigint NOT NULL
);
CREATE INDEX term_df_lookup ON term_df (account_id, lexeme, owner_id);

CREATE FUNCTION term_df_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO term_df (account_id, owner_id, lexeme, delta)
  SELECT n.account_id, coalesce(n.owner_user_id, ''), l.lexeme, count(*)
  FROM new_rows n, unnest(array_append(tsvector_to_array(n.search_tsv), '')) AS l(lexeme)
  GROUP BY 1, 2, 3; RETURN NULL; END $$;

CREATE FUNCTION term_df_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO term_df (account_id, owner_id, lexeme, delta)
  SELECT o.account_id, coalesce(o.owner_user_id, ''), l.lexeme, -count(*)
  FROM old_rows o, unnest(array_append(tsvector_to_array(o.search_tsv), '')) AS l(lexeme)
  GROUP BY 1, 2, 3; RETURN NULL; END $$;

CREATE FUNCTION term_df_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO term_df (account_id, owner_id, lexeme, delta)
  SELECT c.account_id, c.owner_id, c.lexeme, sum(c.d) FROM (
    SELECT n.account_id, coalesce(n.owner_user_id, '') AS owner_id, l.lexeme, 1 AS d
    FROM new_rows n, unnest(array_append(tsvector_to_array(n.search_tsv), '')) AS l(lexeme)
    WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.account_id = n.account_id AND o.uri = n.uri
      AND o.search_tsv = n.search_tsv AND o.owner_user_id IS NOT DISTINCT FROM n.owner_user_id)
    UNION ALL
    SELECT o.account_id, coalesce(o.owner_user_id, ''), l.lexeme, -1
    FROM old_rows o, unnest(array_append(tsvector_to_array(o.search_tsv), '')) AS l(lexeme)
    WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE o.account_id = n.account_id AND o.uri = n.uri
      AND o.search_tsv = n.search_tsv AND o.owner_user_id IS NOT DISTINCT FROM n.owner_user_id)
  ) c GROUP BY 1, 2, 3 HAVING sum(c.d) <> 0; RETURN NULL; END $$;

CREATE TRIGGER nodes_term_df_added AFTER INSERT ON nodes REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION term_df_added();
CREATE TRIGGER nodes_term_df_removed AFTER DELETE ON nodes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION term_df_removed();
CREATE TRIGGER nodes_term_df_changed AFTER UPDATE ON nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION term_df_changed();

INSERT INTO term_df (account_id, owner_id, lexeme, delta)
SELECT n.account_id, coalesce(n.owner_user_id, ''), l.lexeme, count(*)
FROM nodes n, unnest(array_append(tsvector_to_array(n.search_tsv), '')) AS l(lexeme)
GROUP BY 1, 2, 3;
`,
};

/**
 * Document frequencies count files only (docs/context.md, "Lexical scoring"). A directory's summary repeats
 * its children's words, so with directories counted every word of a memory was counted again by each
 * ancestor that lists it: in a store of one memory, its words were in 4 of 5 nodes and weighed almost
 * nothing against a query word the store lacks, and the plugin's recall (score threshold 0.35) served
 * nothing. Rebuilds the table from the files.
 */
export const TERM_DF_FILES_MIGRATION: Migration = {
  version: 91,
  name: 'lexeme document frequencies over files only',
  sql: `
CREATE OR REPLACE FUNCTION term_df_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO term_df (account_id, owner_id, lexeme, delta)
  SELECT n.account_id, coalesce(n.owner_user_id, ''), l.lexeme, count(*)
  FROM new_rows n, unnest(array_append(tsvector_to_array(n.search_tsv), '')) AS l(lexeme)
  WHERE n.kind = 'file'
  GROUP BY 1, 2, 3; RETURN NULL; END $$;

CREATE OR REPLACE FUNCTION term_df_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO term_df (account_id, owner_id, lexeme, delta)
  SELECT o.account_id, coalesce(o.owner_user_id, ''), l.lexeme, -count(*)
  FROM old_rows o, unnest(array_append(tsvector_to_array(o.search_tsv), '')) AS l(lexeme)
  WHERE o.kind = 'file'
  GROUP BY 1, 2, 3; RETURN NULL; END $$;

CREATE OR REPLACE FUNCTION term_df_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO term_df (account_id, owner_id, lexeme, delta)
  SELECT c.account_id, c.owner_id, c.lexeme, sum(c.d) FROM (
    SELECT n.account_id, coalesce(n.owner_user_id, '') AS owner_id, l.lexeme, 1 AS d
    FROM new_rows n, unnest(array_append(tsvector_to_array(n.search_tsv), '')) AS l(lexeme)
    WHERE n.kind = 'file' AND NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.account_id = n.account_id AND o.uri = n.uri
      AND o.kind = n.kind AND o.search_tsv = n.search_tsv AND o.owner_user_id IS NOT DISTINCT FROM n.owner_user_id)
    UNION ALL
    SELECT o.account_id, coalesce(o.owner_user_id, ''), l.lexeme, -1
    FROM old_rows o, unnest(array_append(tsvector_to_array(o.search_tsv), '')) AS l(lexeme)
    WHERE o.kind = 'file' AND NOT EXISTS (SELECT 1 FROM new_rows n WHERE o.account_id = n.account_id AND o.uri = n.uri
      AND o.kind = n.kind AND o.search_tsv = n.search_tsv AND o.owner_user_id IS NOT DISTINCT FROM n.owner_user_id)
  ) c GROUP BY 1, 2, 3 HAVING sum(c.d) <> 0; RETURN NULL; END $$;

DELETE FROM term_df;
INSERT INTO term_df (account_id, owner_id, lexeme, delta)
SELECT n.account_id, coalesce(n.owner_user_id, ''), l.lexeme, count(*)
FROM nodes n, unnest(array_append(tsvector_to_array(n.search_tsv), '')) AS l(lexeme)
WHERE n.kind = 'file'
GROUP BY 1, 2, 3;
`,
};

import type { Migration } from './migration';
import { SESSION_MIGRATIONS } from './session-migrations';
import { REINDEX_ROOT_MIGRATION } from './reindex-root.migration';
import { SIDECAR_STATE_MIGRATION } from './sidecar-state.migration';
import { TERM_DF_FILES_MIGRATION, TERM_DF_MIGRATION } from './term-df.migration';
import { DEPLOYMENT_MIGRATION } from './deployment.migration';
import { ACCOUNT_USAGE_MIGRATION } from './account-usage.migration';
import { MESSAGE_USAGE_MIGRATION } from './message-usage.migration';
import { USAGE_RECORDS_MIGRATION } from './usage-records.migration';
import { UPLOAD_TOKENS_MIGRATION } from './upload-tokens.migration';
import { TOOL_RESULTS_MIGRATION } from './tool-results.migration';
import { SESSION_ARCHIVE_MARKS_MIGRATION } from './session-archive-marks.migration';
import { OPEN_TASKS_ACCOUNT_MIGRATION } from './open-tasks-account.migration';
import { ACCOUNT_LIMITS_MIGRATION } from './account-limits.migration';
import { AUDIT_EVENTS_MIGRATION } from './audit-events.migration';
import { IDEMPOTENCY_KEYS_MIGRATION } from './idempotency-keys.migration';
import { KEY_EXPIRY_MIGRATION } from './key-expiry.migration';
import { ACCOUNT_SUSPENSION_MIGRATION } from './account-suspension.migration';
import { IMPORT_HEARTBEAT_MIGRATION } from './import-heartbeat.migration';
import { EXTRACT_PROGRESS_MIGRATION } from './extract-progress.migration';
import { INDEX_RUNS_MIGRATION } from './index-runs.migration';
import { IDEMPOTENCY_CANONICAL_MIGRATION } from './idempotency-canonical.migration';
import { OUTBOX_SPLIT_FROM_MIGRATION } from './outbox-split-from.migration';
import { DIRECTORY_DESCRIPTION_MIGRATION } from './directory-description.migration';
import { IDEMPOTENCY_RESUME_MIGRATION } from './idempotency-resume.migration';
import { SESSION_IDLE_CHECK_MIGRATION } from './session-idle-check.migration';

export type { Migration } from './migration';

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'identity, nodes, sessions',
    sql: `
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE accounts (
  account_id   text PRIMARY KEY,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  account_id   text NOT NULL REFERENCES accounts(account_id) ON DELETE CASCADE,
  user_id      text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'user')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id)
);

-- Keys are stored as SHA-256 of the whole key: user keys carry 256 bits of randomness, so a slow
-- password hash adds nothing but per-request latency; the clear key is shown once and never stored.
CREATE TABLE api_keys (
  key_hash     text PRIMARY KEY,
  account_id   text NOT NULL,
  user_id      text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (account_id, user_id) REFERENCES users(account_id, user_id) ON DELETE CASCADE
);
CREATE INDEX api_keys_owner ON api_keys (account_id, user_id);

CREATE TABLE nodes (
  account_id    text NOT NULL,
  uri           text NOT NULL,
  parent_uri    text,
  kind          text NOT NULL CHECK (kind IN ('file', 'directory')),
  context_type  text NOT NULL CHECK (context_type IN ('memory', 'resource', 'skill')),
  -- Derived from the URI at write time: the user space (viking://user/{owner}/...) and peer subtree
  -- (.../peers/{peer}/...) it lies in; NULL for account-shared nodes. Scoping SQL filters on these.
  owner_user_id text,
  peer_id       text,
  abstract      text NOT NULL DEFAULT '',
  overview      text NOT NULL DEFAULT '',
  content       text NOT NULL DEFAULT '',
  tags          text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  embedding     vector,
  embedder_id   text,
  search_text   text NOT NULL DEFAULT '',
  indexed_at    timestamptz,
  PRIMARY KEY (account_id, uri)
);
CREATE INDEX nodes_parent ON nodes (account_id, parent_uri);
CREATE INDEX nodes_uri_prefix ON nodes (account_id, uri text_pattern_ops);
CREATE INDEX nodes_owner ON nodes (account_id, owner_user_id);

CREATE TABLE sessions (
  account_id           text NOT NULL,
  user_id              text NOT NULL,
  session_id           text NOT NULL,
  total_message_count  integer NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id, session_id)
);

CREATE TABLE messages (
  account_id   text NOT NULL,
  user_id      text NOT NULL,
  session_id   text NOT NULL,
  seq          integer NOT NULL,
  message_id   text NOT NULL,
  role         text NOT NULL,
  content      text NOT NULL DEFAULT '',
  parts        jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id, session_id, seq),
  FOREIGN KEY (account_id, user_id, session_id) REFERENCES sessions(account_id, user_id, session_id) ON DELETE CASCADE
);
`,
  },
  {
    version: 2,
    name: 'lexical search over search_text',
    sql: `
-- search_text is already segmented by the application (Intl.Segmenter for CJK, identifiers whole and
-- split), so the 'simple' configuration only splits on the spaces it put there and lower-cases.
ALTER TABLE nodes ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED;
CREATE INDEX nodes_search_tsv ON nodes USING gin (search_tsv);
`,
  },
  {
    version: 3,
    name: 'stemmed lexical search',
    sql: `
-- Word forms meet: "camping" finds "camp", "planned" finds "planning" (Snowball English stemmer, built
-- into PostgreSQL and PGlite). No stop-word list: the retriever drops function words from queries
-- itself, and a stop list here would make names like "IT" or "The Who" unfindable. CJK words and
-- identifiers pass through the stemmer unchanged. Existing rows are re-derived by the generated column.
CREATE TEXT SEARCH DICTIONARY muninn_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION muninn (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION muninn ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH muninn_stem;
DROP INDEX nodes_search_tsv;
ALTER TABLE nodes DROP COLUMN search_tsv;
ALTER TABLE nodes ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('muninn', search_text)) STORED;
CREATE INDEX nodes_search_tsv ON nodes USING gin (search_tsv);
`,
  },
  {
    version: 10,
    name: 'write outbox and coalesced directory summaries',
    sql: `
-- rev: the outbox entry of the write that last changed the node's content; the indexer stores its
-- result only while the node still has the rev it read, so a slow job never overwrites a newer index.
ALTER TABLE nodes ADD COLUMN rev bigint NOT NULL DEFAULT 0;
-- Directory summaries: when they were last recomputed (claimed), a claim counter that lets only the
-- latest claim store its result, and when an overdue refresh is due (NULL: nothing pending).
ALTER TABLE nodes ADD COLUMN sidecar_at timestamptz;
ALTER TABLE nodes ADD COLUMN sidecar_claim bigint NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN sidecar_due timestamptz;
CREATE INDEX nodes_sidecar_due ON nodes (sidecar_due) WHERE sidecar_due IS NOT NULL;

-- Written in the same transaction as the nodes it names; deleted by the index job that indexed them.
-- A relay re-enqueues entries still present after due_at, so a write committed while Redis was away
-- (or before a crash) is indexed all the same.
CREATE TABLE index_outbox (
  id          bigserial PRIMARY KEY,
  account_id  text NOT NULL,
  op          text NOT NULL CHECK (op IN ('upsert', 'delete')),
  uris        text[] NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  due_at      timestamptz NOT NULL DEFAULT now(),
  attempts    integer NOT NULL DEFAULT 0
);
CREATE INDEX index_outbox_due ON index_outbox (due_at);

-- Nodes stored before this migration whose index job was lost are indexed now, 256 per entry.
INSERT INTO index_outbox (account_id, op, uris)
SELECT account_id, 'upsert', array_agg(uri ORDER BY uri)
FROM (SELECT account_id, uri, (row_number() OVER (PARTITION BY account_id ORDER BY uri) - 1) / 256 AS chunk
      FROM nodes WHERE indexed_at IS NULL) pending
GROUP BY account_id, chunk;
`,
  },
  {
    version: 60,
    name: 'index_outbox by account',
    // fs stat's isLocked asks whether an account has pending index work under a URI; with a large
    // backlog that must not scan every tenant's entries.
    sql: 'CREATE INDEX index_outbox_account ON index_outbox (account_id)',
  },
  ...SESSION_MIGRATIONS,
  REINDEX_ROOT_MIGRATION,
  UPLOAD_TOKENS_MIGRATION,
  SIDECAR_STATE_MIGRATION,
  TERM_DF_MIGRATION,
  TOOL_RESULTS_MIGRATION,
  TERM_DF_FILES_MIGRATION,
  DEPLOYMENT_MIGRATION,
  ACCOUNT_USAGE_MIGRATION,
  MESSAGE_USAGE_MIGRATION,
  USAGE_RECORDS_MIGRATION,
  SESSION_ARCHIVE_MARKS_MIGRATION,
  OPEN_TASKS_ACCOUNT_MIGRATION,
  ACCOUNT_LIMITS_MIGRATION,
  AUDIT_EVENTS_MIGRATION,
  ACCOUNT_SUSPENSION_MIGRATION,
  IDEMPOTENCY_KEYS_MIGRATION,
  KEY_EXPIRY_MIGRATION,
  IMPORT_HEARTBEAT_MIGRATION,
  EXTRACT_PROGRESS_MIGRATION,
  INDEX_RUNS_MIGRATION,
  IDEMPOTENCY_RESUME_MIGRATION,
  SESSION_IDLE_CHECK_MIGRATION,
  IDEMPOTENCY_CANONICAL_MIGRATION,
  OUTBOX_SPLIT_FROM_MIGRATION,
  DIRECTORY_DESCRIPTION_MIGRATION,
];

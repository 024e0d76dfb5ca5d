import type { Migration } from './migration';

/**
 * One-shot upload links minted by the MCP `add_resource` tool (docs/fs-and-mcp.md, "add_resource"):
 * who may upload (the minting caller, actor peer included), where the file goes and until when. Only
 * a hash of the token is kept; using it deletes the row.
 */
export const UPLOAD_TOKENS_MIGRATION: Migration = {
  version: 41,
  name: 'one-shot upload tokens',
  sql: `
CREATE TABLE upload_tokens (
  token_hash      text PRIMARY KEY,
  account_id      text NOT NULL,
  user_id         text NOT NULL,
  role            text NOT NULL,
  actor_peer_id   text,
  target_uri      text NOT NULL,
  processing_mode text NOT NULL,
  tags            text[],
  expires_at      timestamptz NOT NULL
);
CREATE INDEX upload_tokens_expiry ON upload_tokens (expires_at);
`,
};

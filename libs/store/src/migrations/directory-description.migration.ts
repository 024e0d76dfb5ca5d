import type { Migration } from './migration';

/**
 * A directory's description, given with `mkdir` (docs/fs-and-mcp.md, "Directory descriptions"), kept with the
 * directory: its generated summary is made again whenever its children change, and the first refresh (the
 * directory's own creation makes one) wrote over the description it had been given as its abstract.
 */
export const DIRECTORY_DESCRIPTION_MIGRATION: Migration = {
  version: 110,
  name: 'a directory keeps the description it was made with',
  sql: `ALTER TABLE nodes ADD COLUMN description text;`,
};
